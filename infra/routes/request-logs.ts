import type { RouteDef } from '../route-types.ts';

/** Request logs: logging, reading back, search and scores. */
export const REQUEST_LOG_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/log-request',
    handler: 'functions/http/log-request.ts',
    table: 'write',
    bucket: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/requests/{request_id}',
    handler: 'functions/http/get-request.ts',
    table: 'read',
    bucket: 'read',
  },
];

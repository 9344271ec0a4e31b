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
  {
    method: 'POST',
    path: '/api/public/v2/requests/search',
    handler: 'functions/http/search-requests.ts',
    table: 'read',
    bucket: 'read',
    // Signs and checks search cursors with a key derived from it.
    masterKey: true,
    // A search may read and filter up to SEARCH_MAX_EXAMINED logs: more memory buys more CPU, and the
    // timeout is API Gateway's integration limit.
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
  {
    method: 'POST',
    path: '/rest/track-score',
    handler: 'functions/http/track-score.ts',
    table: 'write',
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/rest/track-metadata',
    handler: 'functions/http/track-metadata.ts',
    table: 'write',
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/rest/track-prompt',
    handler: 'functions/http/track-prompt.ts',
    table: 'write',
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/rest/track-group',
    handler: 'functions/http/track-group.ts',
    table: 'write',
    bucket: 'write',
  },
];

import type { RouteDef } from '../route-types.ts';

/**
 * The API's OpenAPI document (docs/api.md), without a key and without any grant: the function serves
 * the committed docs/openapi.json, which travels in its asset (infra/bundling.ts), gzipped when it may be.
 */
export const OPENAPI_ROUTES: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/http/openapi-document.ts',
    site: 'openapi',
  },
];

import type { RouteDef } from '../route-types.ts';

/**
 * The web dashboard (docs/dashboard.md): its built files, served without a key and without any grant
 * (the function reads only its own asset; `GET /` and `GET /ui` redirect there, answered by the gateway),
 * and `GET /api/public/v2/me`, which tells a key what it may do (the dashboard's sign-in; any client may
 * call it).
 */
export const UI_ROUTES: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/ui/{proxy+}',
    handler: 'functions/http/ui-assets.ts',
    site: 'dashboard',
  },
  {
    method: 'GET',
    path: '/api/public/v2/me',
    handler: 'functions/http/me.ts',
    table: 'read',
  },
];

import type { RouteDef } from '../route-types.ts';

/** Provider keys of a workspace: write-only LLM credentials, sealed with the master key. */
const BASE = '/api/public/v2/provider-keys';

export const PROVIDER_ROUTES: readonly RouteDef[] = [
  {
    method: 'PUT',
    path: `${BASE}/{provider}`,
    handler: 'functions/http/provider-key-put.ts',
    table: 'write',
    masterKey: true, // seals the key
  },
  { method: 'GET', path: BASE, handler: 'functions/http/provider-keys-list.ts', table: 'read' },
  { method: 'GET', path: `${BASE}/{provider}`, handler: 'functions/http/provider-key-get.ts', table: 'read' },
  {
    method: 'DELETE',
    path: `${BASE}/{provider}`,
    handler: 'functions/http/provider-key-delete.ts',
    table: 'write',
  },
];

import type { RouteDef } from '../route-types.ts';

/**
 * Environment variables of a workspace and of its tools: write-only secrets sealed with the master key
 * (the routes that seal say `masterKey`), given to code run in the sandbox as `process.env`.
 */
const WORKSPACE = '/api/public/v2/env-vars';
const TOOL = '/api/public/v2/tool-registry/{identifier}/env-vars';

export const ENV_VAR_ROUTES: readonly RouteDef[] = [
  { method: 'GET', path: WORKSPACE, handler: 'functions/http/env-vars-list.ts', table: 'read' },
  {
    method: 'POST',
    path: WORKSPACE,
    handler: 'functions/http/env-var-create.ts',
    table: 'write',
    masterKey: true, // seals the value
  },
  {
    method: 'PATCH',
    path: `${WORKSPACE}/{var_id}`,
    handler: 'functions/http/env-var-update.ts',
    table: 'write',
    masterKey: true,
  },
  {
    method: 'DELETE',
    path: `${WORKSPACE}/{var_id}`,
    handler: 'functions/http/env-var-delete.ts',
    table: 'write',
  },
  { method: 'GET', path: TOOL, handler: 'functions/http/tool-env-vars-list.ts', table: 'read' },
  {
    method: 'POST',
    path: TOOL,
    handler: 'functions/http/tool-env-var-create.ts',
    table: 'write',
    masterKey: true,
  },
  {
    method: 'PATCH',
    path: `${TOOL}/{var_id}`,
    handler: 'functions/http/tool-env-var-update.ts',
    table: 'write',
    masterKey: true,
  },
  {
    method: 'DELETE',
    path: `${TOOL}/{var_id}`,
    handler: 'functions/http/tool-env-var-delete.ts',
    table: 'write',
  },
];

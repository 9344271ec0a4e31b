import type { RouteDef } from '../route-types.ts';

/**
 * The tool registry: tools, their versions and labels, the list and external ids. Every path under
 * /api/public/v2/tool-registry/{...} names its parameter `identifier`: API Gateway allows one parameter
 * name per path level, so the external-id routes (a `tool_id` in PromptLayer's API) share it.
 */
export const TOOL_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/public/v2/tool-registry',
    handler: 'functions/http/tool-create.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/tool-registry',
    handler: 'functions/http/tools-list.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/api/public/v2/tool-registry/{identifier}',
    handler: 'functions/http/tool-get.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: '/api/public/v2/tool-registry/{identifier}/versions',
    handler: 'functions/http/tool-version-create.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/tool-registry/{identifier}/test-execute',
    handler: 'functions/http/tool-test-execute.ts',
    table: 'read',
    masterKey: true, // opens the environment variables
    sandbox: true,
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    method: 'POST',
    path: '/api/public/v2/tool-registry/{identifier}/external-ids',
    handler: 'functions/http/tool-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/tool-registry/{identifier}/external-ids',
    handler: 'functions/http/tool-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/api/public/v2/tool-registry/{identifier}/external-ids/{source}/{external_id}',
    handler: 'functions/http/tool-external-id-delete.ts',
    table: 'write',
  },
];

import type { RouteDef } from '../route-types.ts';

/**
 * Workflow definitions: versions, labels, the list and external ids. Every path under
 * /workflows/{...} names its parameter `workflow_name`, as the run route does: API Gateway allows one
 * parameter name per path level, so the routes taking a name or an id (and the external-id routes, a
 * `workflow_id` in PromptLayer's API) share it.
 */
export const WORKFLOW_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/rest/workflows',
    handler: 'functions/http/workflow-create.ts',
    table: 'write',
  },
  {
    method: 'PATCH',
    path: '/rest/workflows/{workflow_id_or_name}',
    handler: 'functions/http/workflow-patch.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/workflows',
    handler: 'functions/http/workflows-list.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/workflows/{workflow_name}',
    handler: 'functions/http/workflow-get.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/workflows/{workflow_name}/labels',
    handler: 'functions/http/workflow-labels.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: '/workflows/{workflow_name}/external-ids',
    handler: 'functions/http/workflow-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/workflows/{workflow_name}/external-ids',
    handler: 'functions/http/workflow-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/workflows/{workflow_name}/external-ids/{source}/{external_id}',
    handler: 'functions/http/workflow-external-id-delete.ts',
    table: 'write',
  },
];

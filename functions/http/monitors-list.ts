import { listWorkspaceMonitors } from '#shared/monitors/monitors.ts';
import { monitorListSchema } from '#shared/monitors/views.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/monitors: the workspace's monitors (at most 100), oldest first. */
export const handler = httpRoute({
  permission: ['monitors', 'read'],
  responses: { 200: monitorListSchema },
  handle: ({ auth }) => listWorkspaceMonitors(auth.workspaceId),
});

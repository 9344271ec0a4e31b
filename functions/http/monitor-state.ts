import { getMonitorState } from '#shared/monitors/monitors.ts';
import { monitorStateSchema } from '#shared/monitors/views.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * GET /api/public/v2/monitors/{monitor_id}/state: the evaluator's state of a monitor (ok or triggered,
 * its last and recent values, its recent triggers and resolves).
 */
export const handler = httpRoute({
  path: z.object({ monitor_id: idParam }),
  permission: ['monitors', 'read'],
  responses: { 200: monitorStateSchema },
  handle: ({ path, auth }) => getMonitorState(auth.workspaceId, path.monitor_id),
});

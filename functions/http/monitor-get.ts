import { getMonitorView } from '#shared/monitors/monitors.ts';
import { monitorSchema } from '#shared/monitors/views.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** GET /api/public/v2/monitors/{monitor_id}: one monitor. */
export const handler = httpRoute({
  path: z.object({ monitor_id: idParam }),
  permission: ['monitors', 'read'],
  responses: { 200: monitorSchema },
  handle: ({ path, auth }) => getMonitorView(auth.workspaceId, path.monitor_id),
});

import { changeMonitor } from '#shared/monitors/monitors.ts';
import { updateMonitorSchema } from '#shared/monitors/validation.ts';
import { monitorSchema } from '#shared/monitors/views.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * PATCH /api/public/v2/monitors/{monitor_id}: changes the name, window, threshold, comparison,
 * cool-down or `is_active`; the metric, filter and group_by are fixed at creation.
 */
export const handler = httpRoute({
  path: z.object({ monitor_id: idParam }),
  body: updateMonitorSchema,
  permission: ['monitors', 'edit'],
  responses: { 200: monitorSchema },
  handle: ({ path, body, auth }) => changeMonitor(auth.workspaceId, path.monitor_id, body),
});

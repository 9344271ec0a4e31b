import { removeMonitor } from '#shared/monitors/monitors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** DELETE /api/public/v2/monitors/{monitor_id}: the monitor and its state; no event is sent for it. */
export const handler = httpRoute({
  path: z.object({ monitor_id: idParam }),
  permission: ['monitors', 'edit'],
  responses: { 200: successSchema },
  handle: ({ path, auth }) => removeMonitor(auth.workspaceId, path.monitor_id),
});

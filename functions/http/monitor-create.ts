import { createMonitor } from '#shared/monitors/monitors.ts';
import { createMonitorSchema } from '#shared/monitors/validation.ts';
import { monitorSchema } from '#shared/monitors/views.ts';
import { HttpResponse, httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/monitors: watches a metric of the workspace's requests (cost, requests, error
 * rate, latency p95, tokens) over a rolling window; a crossing of its threshold emits `monitor_triggered`,
 * its end `monitor_resolved`.
 */
export const handler = httpRoute({
  body: createMonitorSchema,
  permission: ['monitors', 'edit'],
  responses: { 201: monitorSchema },
  handle: async ({ body, auth }) => new HttpResponse(201, await createMonitor(auth.workspaceId, body)),
});

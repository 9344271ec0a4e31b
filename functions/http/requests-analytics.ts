import { requestAnalytics } from '#shared/analytics/analytics.ts';
import { analyticsBodySchema, analyticsResponseSchema } from '#shared/analytics/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/requests/analytics: totals, the time series, latency percentiles and breakdowns
 * of the workspace's logs, from the rollups (or from the logs for a filter the rollups cannot answer).
 */
export const handler = httpRoute({
  body: analyticsBodySchema,
  permission: ['request_logs', 'read'],
  responses: { 200: analyticsResponseSchema },
  handle: ({ body, auth }) => requestAnalytics(auth.workspaceId, body),
});

import {
  customAnalytics,
  customAnalyticsBodySchema,
  customAnalyticsResponseSchema,
} from '#shared/analytics/custom-analytics.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/requests/analytics/custom-analytics: charts of a metric (count, sum, avg,
 * percentile...) of the workspace's logs, overall, per dimension value and/or over time.
 */
export const handler = httpRoute({
  body: customAnalyticsBodySchema,
  permission: ['request_logs', 'read'],
  responses: { 200: customAnalyticsResponseSchema },
  handle: ({ body, auth }) => customAnalytics(auth.workspaceId, body),
});

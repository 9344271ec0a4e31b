import type { RequestLogQuery } from '#shared/request-logs/query.ts';
import { analyticsAnswer } from './analytics-answer.ts';
import { analyticsData, planAnalytics } from './analytics-query.ts';

/** POST /api/public/v2/requests/analytics (docs/analytics.md: which path answers what). */
export async function requestAnalytics(
  workspaceId: number,
  request: RequestLogQuery & { metadata_cost_breakdown_key?: string | null },
  nowMs = Date.now(),
) {
  const plan = planAnalytics(request, nowMs);
  const data = await analyticsData(workspaceId, plan, nowMs);
  return analyticsAnswer(data, request.metadata_cost_breakdown_key);
}

import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { scoreCardBodySchema } from '#shared/reports/result-schemas.ts';
import { reportSummaryResponseSchema } from '#shared/reports/schemas.ts';
import { updateScoreCard } from '#shared/reports/score-card.ts';

/** PATCH /reports/{report_id}/score-card: the scored columns and the custom score code. */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  body: scoreCardBodySchema,
  permission: ['reports', 'edit'],
  responses: { 200: reportSummaryResponseSchema },
  errors: [409],
  handle: ({ path, body, auth }) => updateScoreCard(auth.workspaceId, path.report_id, body),
});

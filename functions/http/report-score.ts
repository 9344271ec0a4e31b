import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { reportScoreResponseSchema } from '#shared/reports/result-schemas.ts';
import { reportScoreAnswer } from '#shared/reports/results.ts';

/** GET /reports/{report_id}/score: the score of the report's latest completed run. */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  permission: ['reports', 'read'],
  responses: { 200: reportScoreResponseSchema },
  handle: ({ path, auth }) => reportScoreAnswer(auth.workspaceId, path.report_id),
});

import { httpRoute } from '#shared/platform/http.ts';
import { createReport } from '#shared/reports/definitions.ts';
import { createReportBodySchema, createReportResponseSchema } from '#shared/reports/schemas.ts';

/** POST /reports: an evaluation pipeline (a blueprint) over a published dataset version. */
export const handler = httpRoute({
  body: createReportBodySchema,
  permission: ['reports', 'edit'],
  responses: { 201: createReportResponseSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ body, auth }) => createReport(auth, body),
});

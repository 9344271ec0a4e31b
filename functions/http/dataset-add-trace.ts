import { addTraceToDraft } from '#shared/datasets/append.ts';
import { draftCreatedSchema } from '#shared/datasets/response-schemas.ts';
import { allows } from '#shared/platform/auth-context.ts';
import { forbidden } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { hexId, traceIdField } from '#shared/traces/schemas.ts';

/**
 * POST /api/public/v2/dataset-versions/add-trace: adds a trace (or one span and its direct children) as
 * a row of the group's draft (made when the group has none), 201.
 */
export const handler = httpRoute({
  body: z.object({
    dataset_group_id: z.int().check(z.gte(1)),
    trace_id: traceIdField,
    span_id: z.nullish(hexId('span_id')),
  }),
  permission: ['datasets', 'edit'],
  responses: { 201: draftCreatedSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ body, auth }) => {
    // Traces are read with the request-log permission (GET /traces/{id}): the row is a copy of one.
    if (!allows(auth.permissions, 'request_logs', 'read')) {
      throw forbidden('This API key may not read request logs');
    }
    const draftId = await addTraceToDraft(
      auth,
      body.dataset_group_id,
      body.trace_id,
      body.span_id ?? undefined,
    );
    return { success: true, message: 'Trace added to the draft dataset', draft_dataset_id: draftId };
  },
});

import { addRequestLogToDraft } from '#shared/datasets/append.ts';
import { draftCreatedSchema } from '#shared/datasets/response-schemas.ts';
import { allows } from '#shared/platform/auth-context.ts';
import { forbidden } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-versions/add-request-log: adds one logged request as a row of the group's
 * draft (made when the group has none), as from-filter-params would make it (201).
 */
export const handler = httpRoute({
  body: z.object({ dataset_group_id: z.int().check(z.gte(1)), request_log_id: z.int().check(z.gte(1)) }),
  permission: ['datasets', 'edit'],
  responses: { 201: draftCreatedSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ body, auth }) => {
    // The row is a copy of the log: the key must be allowed to read it.
    if (!allows(auth.permissions, 'request_logs', 'read')) {
      throw forbidden('This API key may not read request logs');
    }
    const draftId = await addRequestLogToDraft(auth, body.dataset_group_id, body.request_log_id);
    return { success: true, message: 'Request log added to the draft dataset', draft_dataset_id: draftId };
  },
});

import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getReplayBatch, replayBatchViewSchema } from '#shared/replay/batch.ts';

/** GET /api/public/v2/requests/replay-batch/{batch_id}: a replay batch's progress and, once done, its dataset. */
export const handler = httpRoute({
  path: z.object({ batch_id: z.uuid() }),
  permission: ['request_logs', 'read'],
  responses: { 200: replayBatchViewSchema },
  handle: ({ path, auth }) => getReplayBatch(auth.workspaceId, path.batch_id),
});

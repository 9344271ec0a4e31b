import { httpRoute } from '#shared/platform/http.ts';
import { replayBatchBodySchema, replayBatchViewSchema, startReplayBatch } from '#shared/replay/batch.ts';

/**
 * POST /api/public/v2/requests/replay-batch: replays many logs (ids, or a search filter) on the job queue
 * and makes a dataset version of the results; answers 202 with the batch to poll.
 */
export const handler = httpRoute({
  body: replayBatchBodySchema,
  // Writes request logs (the replays) and a dataset; a prompt override reads the registry.
  permission: (body) => [
    ['request_logs', 'edit'],
    ['datasets', 'edit'],
    ...(body.prompt ? [['prompts', 'read'] as const] : []),
  ],
  tag: 'request_logs',
  responses: { 202: replayBatchViewSchema },
  errors: [409],
  status: 202,
  handle: ({ body, auth }) => startReplayBatch(auth, body),
});

import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { replayRequestLog } from '#shared/replay/replay.ts';
import { replayBodySchema } from '#shared/replay/schemas.ts';
import { replayAnswerSchema, toReplayLogView } from '#shared/replay/views.ts';

/**
 * POST /api/public/v2/requests/{request_id}/replay: sends the logged request again (as it was, or with
 * the body's overrides) and logs the answer as a new log with `replay_of`. 200 with the new log when
 * the provider answers within the sync limit, else 202 with the RUNNING log, which a job finishes.
 */
export const handler = httpRoute({
  path: z.object({ request_id: idParam }),
  body: replayBodySchema,
  optionalBody: true,
  // A prompt override reads the registry: the rendered version lands in the new log.
  permission: (body) => [['request_logs', 'edit'], ...(body.prompt ? [['prompts', 'read'] as const] : [])],
  tag: 'request_logs',
  responses: { 200: replayAnswerSchema, 202: replayAnswerSchema },
  handle: async ({ path, body, auth }) => {
    const { record, running } = await replayRequestLog(auth.workspaceId, path.request_id, body);
    return new HttpResponse(running ? 202 : 200, { success: true, replay: toReplayLogView(record) });
  },
});

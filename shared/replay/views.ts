import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { jsonObject } from '#shared/platform/response-schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { LOG_STATUSES, type RequestLogRecord } from '#shared/request-logs/record.ts';

/** What the replay routes answer about a replay's log (the whole log: GET /api/public/v2/requests/{id}). */
export const replayLogViewSchema = z
  .object({
    request_id: z.int(),
    replay_of: z.int(),
    status: z.enum(LOG_STATUSES),
    provider: z.string(),
    model: z.string(),
    output: blueprintSchema,
    input_tokens: z.int(),
    output_tokens: z.int(),
    usage: z
      .nullable(jsonObject)
      .clone()
      .register(z.globalRegistry, { description: 'Token usage in one meaning (docs/cost.md)' }),
    cost: z
      .nullable(jsonObject)
      .clone()
      .register(z.globalRegistry, { description: 'The cost breakdown (docs/cost.md)' }),
    price: z.number().clone().register(z.globalRegistry, { description: 'Cost in USD' }),
    latency_ms: z.number(),
    error_type: z.nullable(z.string()),
    error_message: z.nullable(z.string()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'ReplayLog' });

export function toReplayLogView(record: RequestLogRecord): z.infer<typeof replayLogViewSchema> {
  return {
    request_id: record.id,
    replay_of: record.replay_of ?? 0,
    status: record.status,
    provider: record.provider,
    model: record.model,
    output: record.output as z.infer<typeof blueprintSchema>,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    usage: (record.usage as Record<string, unknown> | undefined) ?? null,
    cost: (record.cost as Record<string, unknown> | undefined) ?? null,
    price: record.price,
    latency_ms: record.request_end_time - record.request_start_time,
    error_type: record.error_type,
    error_message: record.error_message,
  };
}

/** POST .../replay: 200 when the provider answered in time, 202 (RUNNING) when the replay goes on as a job. */
export const replayAnswerSchema = z.object({ success: z.literal(true), replay: replayLogViewSchema });

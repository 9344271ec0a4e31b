import * as z from 'zod';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { jsonObject } from '#shared/platform/response-schemas.ts';
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
    usage: jsonObject.nullable().meta({ description: 'Token usage in one meaning (docs/cost.md)' }),
    cost: jsonObject.nullable().meta({ description: 'The cost breakdown (docs/cost.md)' }),
    price: z.number().meta({ description: 'Cost in USD' }),
    latency_ms: z.number(),
    error_type: z.string().nullable(),
    error_message: z.string().nullable(),
  })
  .meta({ id: 'ReplayLog' });

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

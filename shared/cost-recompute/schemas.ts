import * as z from 'zod';
import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { timestampSchema } from '#shared/platform/time.ts';
import { requestLogQuerySchema } from '#shared/request-logs/query.ts';

/** Request and response schemas of the cost recompute routes (docs/cost.md, docs/api.md). */

/** POST /api/public/v2/requests/cost-recompute: which logs (search's filter_group and q) within which time range. */
export const recomputeBodySchema = requestLogQuerySchema
  .pick({ filter_group: true, q: true })
  .extend({
    start_time: timestampSchema.meta({ description: 'Logs whose request_start_time is at or after this' }),
    end_time: timestampSchema.meta({ description: 'Logs whose request_start_time is at or before this' }),
  })
  .superRefine((body, ctx) => {
    if (body.end_time < body.start_time)
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time is before start_time' });
  });

export const recomputeJobPathSchema = z.object({ job_id: z.uuid() });

export const recomputeJobViewSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    start_time: isoTimestamp,
    end_time: isoTimestamp,
    filter_group: z.unknown().nullable(),
    q: z.string().nullable(),
    matched: z.int().meta({ description: 'Logs that matched, examined so far' }),
    rewritten: z.int().meta({ description: 'Logs whose cost changed and was rewritten' }),
    unchanged: z.int().meta({ description: 'Logs whose cost was already the current one' }),
    client_priced: z.int().meta({ description: 'Logs priced by their client, left as they are' }),
    error: z.string().nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    finished_at: isoTimestamp.nullable(),
  })
  .meta({ id: 'CostRecomputeJob' });

export const recomputeJobAnswerSchema = z.object({ success: z.literal(true), job: recomputeJobViewSchema });

import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { timestampSchema } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { requestLogQuerySchema } from '#shared/request-logs/query.ts';

/** Request and response schemas of the cost recompute routes (docs/cost.md, docs/api.md). */

/** POST /api/public/v2/requests/cost-recompute: which logs (search's filter_group and q) within which time range. */
export const recomputeBodySchema = z
  .extend(z.pick(requestLogQuerySchema, { filter_group: true, q: true }), {
    start_time: timestampSchema
      .clone()
      .register(z.globalRegistry, { description: 'Logs whose request_start_time is at or after this' }),
    end_time: timestampSchema
      .clone()
      .register(z.globalRegistry, { description: 'Logs whose request_start_time is at or before this' }),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.end_time < body.start_time)
        ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time is before start_time' });
    }),
  );

export const recomputeJobPathSchema = z.object({ job_id: z.uuid() });

export const recomputeJobViewSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    start_time: isoTimestamp,
    end_time: isoTimestamp,
    filter_group: z.nullable(z.unknown()),
    q: z.nullable(z.string()),
    matched: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'Logs that matched, examined so far' }),
    rewritten: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'Logs whose cost changed and was rewritten' }),
    unchanged: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'Logs whose cost was already the current one' }),
    client_priced: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'Logs priced by their client, left as they are' }),
    error: z.nullable(z.string()),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    finished_at: z.nullable(isoTimestamp),
  })
  .clone()
  .register(z.globalRegistry, { id: 'CostRecomputeJob' });

export const recomputeJobAnswerSchema = z.object({ success: z.literal(true), job: recomputeJobViewSchema });

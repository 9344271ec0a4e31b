import * as z from '#shared/platform/zod.ts';
import { scoreConfigurationSchema } from './schemas.ts';

/** Bodies of the results routes: the score, the score card, the rows of an evaluation. */

const columnScoreSchema = z.object({
  column_name: z.string(),
  score: z.nullable(z.number()),
  score_type: z.nullable(z.enum(['boolean', 'numeric'])),
  num_skipped: z.int(),
});

export const reportScoreSchema = z.object({
  overall_score: z.nullable(z.number()),
  score_type: z.enum(['single_column', 'multi_column', 'custom', 'none']),
  has_custom_scoring: z.boolean(),
  details: z.union([
    columnScoreSchema.clone().register(z.globalRegistry, { description: 'Single column score details' }),
    z
      .object({ columns: z.array(columnScoreSchema) })
      .clone()
      .register(z.globalRegistry, { description: 'Multi-column score details' }),
    z
      .object({
        matrix: z.array(z.unknown()),
        configuration: z.nullable(z.object({ code: z.string(), code_language: z.string() })),
        error: z.optional(z.string()),
      })
      .clone()
      .register(z.globalRegistry, {
        description: 'Custom score details (`error`: why the score code failed)',
      }),
    z.object({ message: z.string() }).clone().register(z.globalRegistry, { description: 'No score details' }),
  ]),
});

/** GET /reports/{report_id}/score. */
export const reportScoreResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  score: reportScoreSchema,
});

/** PATCH /reports/{report_id}/score-card. */
export const scoreCardBodySchema = z.object({
  column_names: z.array(z.string().check(z.maxLength(255))).check(z.maxLength(50)),
  code: z.nullish(scoreConfigurationSchema.shape.code),
  code_language: z.optional(z.enum(['PYTHON', 'JAVASCRIPT'])),
});
export type ScoreCardBody = z.infer<typeof scoreCardBodySchema>;

const omittedBytes = z.optional(z.int()).clone().register(z.globalRegistry, {
  description:
    'Set when the value was left out (`value: null`) so that the page fits one answer: the size of its JSON. A smaller `per_page` answers it.',
});

/** GET /api/public/v2/evaluations/{evaluation_id}/rows. */
export const evaluationRowsSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  columns: z.array(z.string()),
  rows: z.array(
    z.array(
      z.union([
        z.object({ type: z.literal('dataset'), value: z.unknown(), value_omitted_bytes: omittedBytes }),
        z.object({
          type: z.literal('eval'),
          status: z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'NOT_RUN']),
          value: z.unknown(),
          error_message: z.nullable(z.string()),
          request_log_id: z.optional(z.int()).clone().register(z.globalRegistry, {
            description: 'the request log the cell recorded (PROMPT_TEMPLATE, LLM_ASSERTION), when it did',
          }),
          value_omitted_bytes: omittedBytes,
        }),
      ]),
    ),
  ),
  page: z.int(),
  per_page: z.int(),
  pages: z.int(),
  total: z.int(),
});
export type EvaluationRowsPage = z.infer<typeof evaluationRowsSchema>;

import * as z from 'zod';
import { scoreConfigurationSchema } from './schemas.ts';

/** Bodies of the results routes: the score, the score card, the rows of an evaluation. */

const columnScoreSchema = z.object({
  column_name: z.string(),
  score: z.number().nullable(),
  score_type: z.enum(['boolean', 'numeric']).nullable(),
  num_skipped: z.int(),
});

export const reportScoreSchema = z.object({
  overall_score: z.number().nullable(),
  score_type: z.enum(['single_column', 'multi_column', 'custom', 'none']),
  has_custom_scoring: z.boolean(),
  details: z.union([
    columnScoreSchema.meta({ description: 'Single column score details' }),
    z.object({ columns: z.array(columnScoreSchema) }).meta({ description: 'Multi-column score details' }),
    z
      .object({
        matrix: z.array(z.unknown()),
        configuration: z.object({ code: z.string(), code_language: z.string() }).nullable(),
        error: z.string().optional(),
      })
      .meta({ description: 'Custom score details (`error`: why the score code failed)' }),
    z.object({ message: z.string() }).meta({ description: 'No score details' }),
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
  column_names: z.array(z.string().max(255)).max(50),
  code: scoreConfigurationSchema.shape.code.nullish(),
  code_language: z.enum(['PYTHON', 'JAVASCRIPT']).optional(),
});
export type ScoreCardBody = z.infer<typeof scoreCardBodySchema>;

const omittedBytes = z.int().optional().meta({
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
          error_message: z.string().nullable(),
          request_log_id: z.int().optional().meta({
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

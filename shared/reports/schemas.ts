import * as z from 'zod';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { isoTimestamp, jsonObject, successMessageSchema } from '#shared/platform/response-schemas.ts';
import { idParam, ownKeysRecord, queryBoolean, wellFormedString } from '#shared/platform/schemas.ts';
import { headListQuerySchema, publishExternalIdsSchema } from '#shared/versions/schemas.ts';
import { OMITTABLE_FIELDS, type OmittableField } from './list-budget.ts';

/** Request and response shapes of the report definition routes (PromptLayer's field names). */

/** Beyond MAX_REPORT_COLUMNS a create is a 400 (columns.ts); this only bounds the body's parsing. */
const MAX_COLUMNS_IN_BODY = 500;
export const MAX_REPORT_NAME_LENGTH = 255;
export const MAX_TAGS = 100;

export const MAX_COLUMN_NAME_LENGTH = 255;

/** A column as a client defines it (POST /reports `columns[]`, POST /report-columns). */
export const columnDefinitionSchema = z.object({
  /** Any text: a type this service does not run is a 400 naming it, not a validation error. */
  column_type: wellFormedString().min(1).max(64),
  name: wellFormedString().min(1).max(MAX_COLUMN_NAME_LENGTH),
  configuration: ownKeysRecord(z.string(), z.unknown()),
  position: z.int().min(0).nullish(),
  is_part_of_score: z.boolean().nullish(),
});
export type ColumnDefinition = z.infer<typeof columnDefinitionSchema>;

export const reportNameSchema = wellFormedString().min(1).max(MAX_REPORT_NAME_LENGTH);

/** JAVASCRIPT when not given; PYTHON is refused with a 400 where it is used (it cannot run here). */
export const scoreConfigurationSchema = z.object({
  code: z.string().min(1).max(100_000),
  code_language: z.enum(['JAVASCRIPT', 'PYTHON']).default('JAVASCRIPT'),
});

/** POST /reports. */
export const createReportBodySchema = z.object({
  dataset_group_id: z.int().min(1),
  name: reportNameSchema.nullish(),
  folder_id: z.int().min(1).nullish(),
  dataset_version_number: z.int().min(1).nullish(),
  columns: z.array(columnDefinitionSchema).max(MAX_COLUMNS_IN_BODY).nullish(),
  score_configuration: scoreConfigurationSchema.nullish(),
  external_ids: publishExternalIdsSchema.optional(),
});
export type CreateReportBody = z.output<typeof createReportBodySchema>;

/** POST /report-columns. */
export const createColumnBodySchema = columnDefinitionSchema.extend({ report_id: z.int().min(1) });
export type CreateColumnBody = z.output<typeof createColumnBodySchema>;

/**
 * PATCH /report-columns/{report_column_id}: column_type is required, the rest optional; null (as
 * PromptLayer's contract allows for each) leaves the field as it is.
 */
export const patchColumnBodySchema = z.object({
  report_id: z.int().min(1),
  column_type: columnDefinitionSchema.shape.column_type,
  name: columnDefinitionSchema.shape.name.nullish(),
  configuration: columnDefinitionSchema.shape.configuration.nullish(),
  position: z.int().min(0).nullish(),
  is_part_of_score: z.boolean().nullish(),
});
export type PatchColumnBody = z.output<typeof patchColumnBodySchema>;

/** PATCH /reports/{report_id}/rename: name and/or tags (replacing; [] clears); at least one. */
export const renameReportBodySchema = z
  .object({
    name: reportNameSchema.nullish(),
    tags: z.array(wellFormedString().min(1).max(255)).max(MAX_TAGS).nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.name == null && body.tags == null) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'give name or tags (or both)' });
    }
  });
export type RenameReportBody = z.output<typeof renameReportBodySchema>;

/** GET /api/public/v2/evaluations (per_page default 10, max 100). */
export const listEvaluationsQuerySchema = headListQuerySchema(
  {
    name: z.string().max(MAX_REPORT_NAME_LENGTH).optional(),
    status: z.enum(['active', 'deleted', 'all']).default('active'),
    include_runs: queryBoolean.default(false),
    created_by_email: z.string().max(MAX_EMAIL_LENGTH).optional(),
    workspace_id: idParam.optional(),
  },
  { defaultPerPage: 10 },
);
export type ListEvaluationsQuery = z.output<typeof listEvaluationsQuerySchema>;

// ---------------------------------------------------------------------------------------------------------
// Responses

export const reportColumnSchema = z
  .object({
    id: z.int(),
    report_id: z.int(),
    name: z.string().max(MAX_COLUMN_NAME_LENGTH),
    column_type: z.string(),
    position: z.int().meta({ description: '1-based among the evaluation columns' }),
    is_part_of_score: z.boolean(),
    configuration: jsonObject,
  })
  .meta({ id: 'ReportColumn' });

export const createReportResponseSchema = z
  .object({
    success: z.literal(true),
    report_id: z.int(),
    report_columns: z.array(reportColumnSchema),
    external_ids: z.array(externalIdSchema),
  })
  .meta({ id: 'CreateEvaluationPipelineResponse' });

const statusCountsSchema = z.object({
  COMPLETED: z.int(),
  FAILED: z.int(),
  QUEUED: z.int(),
  RUNNING: z.int(),
});
export const reportStatsSchema = z.object({ status_counts: statusCountsSchema });
export const reportStatusSchema = z.enum(['RUNNING', 'COMPLETED']);

export const reportFieldsSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    comment: z.string().nullable(),
    is_blueprint: z.boolean(),
    deleted: z.boolean(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    score: jsonObject.nullable(),
    score_configuration: z
      .object({ code: z.string(), code_language: z.enum(['JAVASCRIPT', 'PYTHON']) })
      .nullable(),
    score_matrix: z.array(z.unknown()).nullable(),
    score_calculation_error: z.string().nullable(),
    parent_report_id: z.int().nullable(),
    dataset_id: z.int(),
    dataset_group_id: z.int(),
    dataset_version_number: z.int(),
    user_id: z.int().nullable(),
    workspace_id: z.int(),
    folder_id: z.int().nullable(),
    tags: z.array(z.string()),
    external_ids: z.array(externalIdSchema),
    prompt_registry_id: z.int().nullable(),
    prompt_version_number: z.int().nullable(),
  })
  .meta({ id: 'Report' });

/** GET /reports/{report_id}. */
export const reportViewSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    report: reportFieldsSchema,
    status: reportStatusSchema,
    stats: reportStatsSchema,
    report_columns: z.array(reportColumnSchema.extend({ score: z.number().nullable() })),
  })
  .meta({ id: 'GetEvaluationResponse' });

const evaluationListItemSchema = reportFieldsSchema.extend({
  status: reportStatusSchema,
  stats: reportStatsSchema,
  omitted_fields: z
    .array(z.enum(Object.keys(OMITTABLE_FIELDS) as [OmittableField, ...OmittableField[]]))
    .optional()
    .meta({
      description:
        'Fields left out of this item (null or [] in their place) to keep the page within one answer; GET /reports/{report_id} has them',
    }),
});

/** GET /api/public/v2/evaluations. */
export const evaluationListSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    evaluations: z.array(
      evaluationListItemSchema.extend({
        runs: z.array(evaluationListItemSchema).optional(),
        runs_omitted: z.int().optional().meta({
          description: 'How many of the oldest runs were left out to keep the page within one answer',
        }),
      }),
    ),
    page: z.int(),
    per_page: z.int(),
    total: z.int(),
    pages: z.int(),
  })
  .meta({ id: 'EvaluationList' });

export const reportColumnResponseSchema = z.object({
  success: z.literal(true),
  report_column: reportColumnSchema,
});

/** PATCH /reports/{report_id}/rename and PATCH /reports/{report_id}/score-card: PromptLayer's pipeline summary. */
export const reportSummaryResponseSchema = z.object({
  success: z.literal(true),
  report: z.object({
    id: z.int(),
    name: z.string(),
    tags: z.array(z.string()),
    score_configuration: reportFieldsSchema.shape.score_configuration,
  }),
});

export const archivedResponseSchema = successMessageSchema;

/** GET /reports/column-types. */
export const reportColumnTypesResponseSchema = z
  .object({
    success: z.literal(true),
    column_types: z.array(
      z.object({
        column_type: z.string(),
        description: z.string(),
        configuration_schema: jsonObject.meta({
          description: "the configuration's JSON Schema (draft 2020-12), as POST /reports checks it",
        }),
        column_reference_fields: z.array(z.string()).meta({
          description: 'top-level configuration fields whose strings name dataset or earlier columns',
        }),
      }),
    ),
  })
  .meta({ id: 'ReportColumnTypes' });

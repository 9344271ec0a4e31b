import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { isoTimestamp, jsonObject, successMessageSchema } from '#shared/platform/response-schemas.ts';
import { idParam, ownKeysRecord, queryBoolean, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
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
  column_type: wellFormedString().check(z.minLength(1), z.maxLength(64)),
  name: wellFormedString().check(z.minLength(1), z.maxLength(MAX_COLUMN_NAME_LENGTH)),
  configuration: ownKeysRecord(z.string(), z.unknown()),
  position: z.nullish(z.int().check(z.gte(0))),
  is_part_of_score: z.nullish(z.boolean()),
});
export type ColumnDefinition = z.infer<typeof columnDefinitionSchema>;

export const reportNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(MAX_REPORT_NAME_LENGTH));

/** JAVASCRIPT when not given; PYTHON is refused with a 400 where it is used (it cannot run here). */
export const scoreConfigurationSchema = z.object({
  code: z.string().check(z.minLength(1), z.maxLength(100_000)),
  code_language: z._default(z.enum(['JAVASCRIPT', 'PYTHON']), 'JAVASCRIPT'),
});

/** POST /reports. */
export const createReportBodySchema = z.object({
  dataset_group_id: z.int().check(z.gte(1)),
  name: z.nullish(reportNameSchema),
  folder_id: z.nullish(z.int().check(z.gte(1))),
  dataset_version_number: z.nullish(z.int().check(z.gte(1))),
  columns: z.nullish(z.array(columnDefinitionSchema).check(z.maxLength(MAX_COLUMNS_IN_BODY))),
  score_configuration: z.nullish(scoreConfigurationSchema),
  external_ids: z.optional(publishExternalIdsSchema),
});
export type CreateReportBody = z.output<typeof createReportBodySchema>;

/** POST /report-columns. */
export const createColumnBodySchema = z.extend(columnDefinitionSchema, {
  report_id: z.int().check(z.gte(1)),
});
export type CreateColumnBody = z.output<typeof createColumnBodySchema>;

/**
 * PATCH /report-columns/{report_column_id}: column_type is required, the rest optional; null (as
 * PromptLayer's contract allows for each) leaves the field as it is.
 */
export const patchColumnBodySchema = z.object({
  report_id: z.int().check(z.gte(1)),
  column_type: columnDefinitionSchema.shape.column_type,
  name: z.nullish(columnDefinitionSchema.shape.name),
  configuration: z.nullish(columnDefinitionSchema.shape.configuration),
  position: z.nullish(z.int().check(z.gte(0))),
  is_part_of_score: z.nullish(z.boolean()),
});
export type PatchColumnBody = z.output<typeof patchColumnBodySchema>;

/** PATCH /reports/{report_id}/rename: name and/or tags (replacing; [] clears); at least one. */
export const renameReportBodySchema = z
  .object({
    name: z.nullish(reportNameSchema),
    tags: z.nullish(
      z.array(wellFormedString().check(z.minLength(1), z.maxLength(255))).check(z.maxLength(MAX_TAGS)),
    ),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.name == null && body.tags == null) {
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'give name or tags (or both)' });
      }
    }),
  );
export type RenameReportBody = z.output<typeof renameReportBodySchema>;

/** GET /api/public/v2/evaluations (per_page default 10, max 100). */
export const listEvaluationsQuerySchema = headListQuerySchema(
  {
    name: z.optional(z.string().check(z.maxLength(MAX_REPORT_NAME_LENGTH))),
    status: z._default(z.enum(['active', 'deleted', 'all']), 'active'),
    include_runs: z._default(queryBoolean, false),
    created_by_email: z.optional(z.string().check(z.maxLength(MAX_EMAIL_LENGTH))),
    workspace_id: z.optional(idParam),
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
    name: z.string().check(z.maxLength(MAX_COLUMN_NAME_LENGTH)),
    column_type: z.string(),
    position: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: '1-based among the evaluation columns' }),
    is_part_of_score: z.boolean(),
    configuration: jsonObject,
  })
  .clone()
  .register(z.globalRegistry, { id: 'ReportColumn' });

export const createReportResponseSchema = z
  .object({
    success: z.literal(true),
    report_id: z.int(),
    report_columns: z.array(reportColumnSchema),
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'CreateEvaluationPipelineResponse' });

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
    comment: z.nullable(z.string()),
    is_blueprint: z.boolean(),
    deleted: z.boolean(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    score: z.nullable(jsonObject),
    score_configuration: z.nullable(
      z.object({ code: z.string(), code_language: z.enum(['JAVASCRIPT', 'PYTHON']) }),
    ),
    score_matrix: z.nullable(z.array(z.unknown())),
    score_calculation_error: z.nullable(z.string()),
    parent_report_id: z.nullable(z.int()),
    dataset_id: z.int(),
    dataset_group_id: z.int(),
    dataset_version_number: z.int(),
    user_id: z.nullable(z.int()),
    workspace_id: z.int(),
    folder_id: z.nullable(z.int()),
    tags: z.array(z.string()),
    external_ids: z.array(externalIdSchema),
    prompt_registry_id: z.nullable(z.int()),
    prompt_version_number: z.nullable(z.int()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Report' });

/** GET /reports/{report_id}. */
export const reportViewSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    report: reportFieldsSchema,
    status: reportStatusSchema,
    stats: reportStatsSchema,
    report_columns: z.array(z.extend(reportColumnSchema, { score: z.nullable(z.number()) })),
  })
  .clone()
  .register(z.globalRegistry, { id: 'GetEvaluationResponse' });

const evaluationListItemSchema = z.extend(reportFieldsSchema, {
  status: reportStatusSchema,
  stats: reportStatsSchema,
  omitted_fields: z
    .optional(z.array(z.enum(Object.keys(OMITTABLE_FIELDS) as [OmittableField, ...OmittableField[]])))
    .clone()
    .register(z.globalRegistry, {
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
      z.extend(evaluationListItemSchema, {
        runs: z.optional(z.array(evaluationListItemSchema)),
        runs_omitted: z.optional(z.int()).clone().register(z.globalRegistry, {
          description: 'How many of the oldest runs were left out to keep the page within one answer',
        }),
      }),
    ),
    page: z.int(),
    per_page: z.int(),
    total: z.int(),
    pages: z.int(),
  })
  .clone()
  .register(z.globalRegistry, { id: 'EvaluationList' });

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
        configuration_schema: jsonObject.clone().register(z.globalRegistry, {
          description: "the configuration's JSON Schema (draft 2020-12), as POST /reports checks it",
        }),
        column_reference_fields: z.array(z.string()).clone().register(z.globalRegistry, {
          description: 'top-level configuration fields whose strings name dataset or earlier columns',
        }),
      }),
    ),
  })
  .clone()
  .register(z.globalRegistry, { id: 'ReportColumnTypes' });

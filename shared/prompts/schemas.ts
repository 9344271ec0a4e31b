import * as z from 'zod';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { intParam, paginationQuery, queryBoolean } from '#shared/platform/schemas.ts';
import { parseTimestamp } from '#shared/platform/time.ts';

/** Request schemas of the prompt registry's routes (bounds from the reference OpenAPI). */

export const promptNameSchema = z.string().min(1).max(512);
export const labelNameSchema = z.string().min(1).max(255);
export const MAX_RELEASE_LABELS = 100;

/** `metadata.model`: provider and name are required once a model is given. */
const modelSchema = z.looseObject({
  provider: z.string().min(1),
  name: z.string().min(1),
  model_config_display_name: z.string().max(255).nullish(),
  base_model: z.string().max(100).nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  display_params: z.record(z.string(), z.unknown()).nullish(),
  api_type: z.string().nullish(),
});

/** Custom metadata fields besides `model` are kept as sent. */
const metadataSchema = z.looseObject({ model: modelSchema.nullish() });

export const publishBodySchema = z.object({
  prompt_template: z.object({
    prompt_name: promptNameSchema,
    // Every publish sets the tags; absent or null is the spec's default [] (publish.ts).
    tags: z.array(z.string().max(512)).nullish(),
    folder_id: z.int().positive().nullish(),
    workspace_id: z.int().nullish(),
  }),
  prompt_version: z.object({
    prompt_template: blueprintSchema,
    commit_message: z.string().max(72).nullish(),
    metadata: metadataSchema.nullish(),
  }),
  // Each label moved writes a copy of the version (docs/prompts.md): bounded per publish.
  release_labels: z.array(labelNameSchema).max(MAX_RELEASE_LABELS).nullish(),
  external_ids: z.array(externalIdSchema).nullish(),
});
export type PublishBody = z.output<typeof publishBodySchema>;

/** A read selects a version by number or by label, never both. */
function versionOrLabel(
  select: { version?: number | null; label?: string | null },
  ctx: z.RefinementCtx,
): void {
  if (select.version != null && select.label != null) {
    ctx.addIssue({ code: 'custom', path: ['label'], message: 'version and label are mutually exclusive' });
  }
}

export const getTemplateQuerySchema = z
  .object({
    version: intParam(1, Number.MAX_SAFE_INTEGER).optional(),
    label: labelNameSchema.optional(),
    resolve_snippets: queryBoolean.optional(),
    include_llm_kwargs: queryBoolean.optional(),
  })
  .superRefine(versionOrLabel);
export type GetTemplateQuery = z.output<typeof getTemplateQuerySchema>;

const jsonObject = z.record(z.string(), z.unknown());

/**
 * POST /prompt-templates/{identifier} (what the SDK's `templates.get` sends). `input_variables` values
 * may be any JSON (jinja2 reads lists and objects); `metadata_filters` is accepted and ignored;
 * `skip_input_variable_rendering` is the SDK's client cache asking for the template unrendered.
 */
export const renderTemplateBodySchema = z
  .object({
    version: z.int().min(1).max(Number.MAX_SAFE_INTEGER).nullish(),
    label: labelNameSchema.nullish(),
    workspace_id: z.int().nullish(),
    provider: z.string().min(1).max(64).nullish(),
    model: z.string().min(1).max(256).nullish(),
    input_variables: jsonObject.nullish(),
    metadata_filters: jsonObject.nullish(),
    model_parameter_overrides: jsonObject.nullish(),
    skip_input_variable_rendering: z.boolean().nullish(),
  })
  .superRefine(versionOrLabel);
export type RenderTemplateBody = z.output<typeof renderTemplateBodySchema>;

/** An ISO 8601 date-time or epoch seconds, as a query string; parses to epoch milliseconds. */
const queryTimestamp = z.string().transform((text, ctx) => {
  const ms = parseTimestamp(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch seconds' });
    return z.NEVER;
  }
  return ms;
});

export const LIST_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'id'] as const;

export const listTemplatesQuerySchema = z
  .object({
    ...paginationQuery(100, 30),
    name: z.string().optional(),
    tags: z.union([z.string(), z.array(z.string())]).optional(),
    label: z.string().optional(),
    status: z.enum(['active', 'deleted', 'all']).default('active'),
    external_source: z.string().min(1).max(128).optional(),
    external_id: z.string().min(1).max(512).optional(),
    created_after: queryTimestamp.optional(),
    created_before: queryTimestamp.optional(),
    updated_after: queryTimestamp.optional(),
    updated_before: queryTimestamp.optional(),
    sort_by: z.enum(LIST_SORT_FIELDS).default('created_at'),
    sort_order: z.enum(['asc', 'desc']).default('desc'),
  })
  .superRefine((query, ctx) => {
    if ((query.external_source === undefined) !== (query.external_id === undefined)) {
      const missing = query.external_source === undefined ? 'external_source' : 'external_id';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: 'external_source and external_id must be given together',
      });
    }
  });
export type ListTemplatesQuery = z.output<typeof listTemplatesQuerySchema>;

export const moveLabelBodySchema = z.object({ prompt_version_number: z.int().min(1) });

/** Query flags as the read path uses them, defaults applied. */
export interface ReadOptions {
  version?: number;
  label?: string;
  resolveSnippets: boolean;
  includeLlmKwargs: boolean;
}

export const toReadOptions = (query: GetTemplateQuery): ReadOptions => ({
  version: query.version,
  label: query.label,
  resolveSnippets: query.resolve_snippets ?? true,
  includeLlmKwargs: query.include_llm_kwargs ?? false,
});

/** The answer of POST /prompt-templates/{identifier}. */
export const renderedTemplateSchema = z.object({
  success: z.literal(true),
  id: z.int(),
  prompt_name: z.string(),
  version: z.int(),
  workspace_id: z.int(),
  prompt_template: blueprintSchema,
  metadata: jsonObject.nullable(),
  commit_message: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
  snippets: z.array(z.object({ prompt_name: z.string(), version: z.int(), label: z.string().nullable() })),
  llm_kwargs: jsonObject
    .nullable()
    .describe('The provider request built from the rendered template; null without model metadata.'),
  warning: z
    .string()
    .nullable()
    .describe('Missing input variables, or why llm_kwargs could not be built; null when all is well.'),
});

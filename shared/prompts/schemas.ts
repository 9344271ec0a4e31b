import * as z from 'zod';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { intParam, paginationQuery, queryBoolean } from '#shared/platform/schemas.ts';
import { parseTimestamp, TIMESTAMP_FORMS } from '#shared/platform/time.ts';

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

export const getTemplateQuerySchema = z
  .object({
    version: intParam(1, Number.MAX_SAFE_INTEGER).optional(),
    label: labelNameSchema.optional(),
    resolve_snippets: queryBoolean.optional(),
    include_llm_kwargs: queryBoolean.optional(),
  })
  .superRefine((query, ctx) => {
    if (query.version !== undefined && query.label !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['label'], message: 'version and label are mutually exclusive' });
    }
  });
export type GetTemplateQuery = z.output<typeof getTemplateQuerySchema>;

/** A timestamp (ISO 8601 or epoch seconds or milliseconds), as a query string; parses to epoch ms. */
const queryTimestamp = z.string().transform((text, ctx) => {
  const ms = parseTimestamp(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `must be ${TIMESTAMP_FORMS}` });
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

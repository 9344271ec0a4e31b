import * as z from 'zod';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { isoTimestamp, jsonObject, pageOf } from '#shared/platform/response-schemas.ts';
import { intParam, paginationQuery, queryBoolean, wellFormedString } from '#shared/platform/schemas.ts';
import {
  headListQuerySchema,
  labelNameSchema,
  MAX_RELEASE_LABELS,
  publishExternalIdsSchema,
  versionOrLabel,
  versionSelectorQuery,
} from '#shared/versions/schemas.ts';

export { labelNameSchema, MAX_RELEASE_LABELS, versionOrLabel };

/** Request schemas of the prompt registry's routes (bounds from the reference OpenAPI). */

export const promptNameSchema = wellFormedString().min(1).max(512);
/** `{identifier}` of the template routes: a prompt name, or a template id as digits. */
export const templateIdentifierSchema = wellFormedString().min(1);

/** `metadata.model`: provider and name are required once a model is given. */
const modelSchema = z.looseObject({
  provider: z.string().min(1),
  name: z.string().min(1),
  model_config_display_name: z.string().max(255).nullish(),
  base_model: z.string().max(100).nullish(),
  parameters: jsonObject.nullish(),
  display_params: jsonObject.nullish(),
  api_type: z.string().nullish(),
});

/** Custom metadata fields besides `model` are kept as sent. */
const metadataSchema = z.looseObject({ model: modelSchema.nullish() });

export const publishBodySchema = z.object({
  prompt_template: z.object({
    prompt_name: promptNameSchema,
    // Every publish sets the tags; absent or null is the default [] (publish.ts).
    tags: z.array(z.string().max(512)).nullish(),
    folder_id: z.int().positive().nullish(),
    workspace_id: z.int().nullish(),
  }),
  prompt_version: z.object({
    prompt_template: blueprintSchema,
    commit_message: z.string().max(72).nullish(),
    metadata: metadataSchema.nullish(),
  }),
  release_labels: z.array(labelNameSchema).max(MAX_RELEASE_LABELS).nullish(),
  external_ids: publishExternalIdsSchema.nullish(),
});
export type PublishBody = z.output<typeof publishBodySchema>;

export const getTemplateQuerySchema = z
  .object({
    ...versionSelectorQuery,
    resolve_snippets: queryBoolean.optional(),
    include_llm_kwargs: queryBoolean.optional(),
  })
  .superRefine(versionOrLabel);
export type GetTemplateQuery = z.output<typeof getTemplateQuerySchema>;

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

export const listTemplatesQuerySchema = headListQuerySchema({
  name: wellFormedString().optional(),
  tags: z.union([z.string(), z.array(z.string())]).optional(),
  label: wellFormedString().optional(),
  status: z.enum(['active', 'deleted', 'all']).default('active'),
});
export type ListTemplatesQuery = z.output<typeof listTemplatesQuerySchema>;

export const moveLabelBodySchema = z.object({ prompt_version_number: z.int().min(1) });

/** POST /prompts/{prompt_id}/label: PromptLayer's create_prompt_label. */
export const createLabelBodySchema = moveLabelBodySchema.extend({ name: labelNameSchema });

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

/* Response schemas of the registry's routes (field for field as views.ts builds them). */

const versionMetadata = metadataSchema.nullable();

export const snippetUseSchema = z.object({
  prompt_name: z.string(),
  version: z.int(),
  label: z.string().nullable().meta({ description: 'The label the reference named; null for a version' }),
});

/** GET /prompt-templates/{identifier}: a version, raw ("Prompt template (raw)"). */
export const rawTemplateViewSchema = z
  .object({
    success: z.literal(true),
    id: z.int(),
    prompt_name: z.string(),
    version: z.int(),
    workspace_id: z.int(),
    prompt_template: blueprintSchema,
    metadata: versionMetadata,
    commit_message: z.string().nullable(),
    tags: z.array(z.string()),
    created_at: isoTimestamp,
    snippets: z.array(snippetUseSchema),
    llm_kwargs: jsonObject.optional().meta({ description: 'With include_llm_kwargs=true and a model' }),
    warning: z
      .string()
      .optional()
      .meta({ description: 'Registry tool references left out because they no longer resolve' }),
  })
  .meta({ id: 'PromptTemplateRaw' });

/** POST /rest/prompt-templates. */
export const publishViewSchema = z
  .object({
    id: z.int(),
    prompt_name: z.string(),
    prompt_version_id: z.int(),
    version_number: z.int(),
    tags: z.array(z.string()),
    release_labels: z.array(z.string()),
    prompt_template: blueprintSchema,
    metadata: versionMetadata,
    commit_message: z.string().nullable(),
    external_ids: z.array(externalIdSchema),
  })
  .meta({ id: 'PublishedPromptVersion' });

/** An item of GET /prompt-templates: the template with its latest version. */
export const templateListItemSchema = z
  .object({
    id: z.int(),
    prompt_name: z.string(),
    prompt_template: blueprintSchema,
    metadata: versionMetadata,
    commit_message: z.string().nullable(),
    version: z.int(),
    external_ids: z.array(externalIdSchema),
    is_snippet: z.boolean(),
    tags: z.array(z.string()),
    folder_id: z.int().nullable(),
    release_labels: z.array(z.string()),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'PromptTemplateListItem' });

export const templateListSchema = pageOf(templateListItemSchema);

/** GET /prompt-templates/{identifier}/versions: page/per_page, newest first. */
export const listVersionsQuerySchema = z.object({ ...paginationQuery(100, 30) });

/** An item of GET /prompt-templates/{identifier}/versions. */
export const versionSummarySchema = z
  .object({
    id: z.int().describe('The prompt_version_id.'),
    version_number: z.int(),
    commit_message: z.string().nullable(),
    created_at: isoTimestamp,
    release_labels: z.array(z.string()).describe('The labels on this version now, in name order.'),
    model: z
      .object({ provider: z.string(), name: z.string() })
      .nullable()
      .describe("The version's metadata.model provider and name; null without a model."),
    template_type: z.enum(['chat', 'completion']),
  })
  .meta({ id: 'PromptVersionSummary' });

export const versionListSchema = pageOf(versionSummarySchema);

/** The prompt label object (PATCH /prompt-labels/{id}). */
export const labelViewSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    prompt_id: z.int(),
    prompt_version_id: z.int(),
    prompt_version_number: z.int(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'PromptLabel' });

/** GET /prompt-templates/{identifier}/labels. */
export const labelsViewSchema = z.object({
  release_labels: z.array(
    z.object({
      release_label: z.string(),
      release_label_id: z.int(),
      prompt_version_id: z.int(),
      prompt_version_number: z.int(),
    }),
  ),
});

/** `prompt_version` of POST /log-request: the version a logged request used. */
export const promptVersionViewSchema = z
  .object({
    id: z.int(),
    prompt_id: z.int(),
    prompt_name: z.string(),
    version_number: z.int(),
    prompt_template: blueprintSchema,
    metadata: versionMetadata,
    commit_message: z.string().nullable(),
    created_at: isoTimestamp,
  })
  .meta({ id: 'PromptVersion' });

/** The answer of POST /prompt-templates/{identifier}: the raw view, rendered, with two fields more. */
export const renderedTemplateSchema = rawTemplateViewSchema
  .extend({
    llm_kwargs: jsonObject
      .nullable()
      .describe('The provider request built from the rendered template; null without model metadata.'),
    warning: z
      .string()
      .nullable()
      .describe(
        'Registry tools left out, missing input variables, or why llm_kwargs could not be built; null when all is well.',
      ),
  })
  .meta({ id: 'PromptTemplateRendered' });

export const snippetUsageQuerySchema = z.object({
  prompt_version_number: intParam(1, Number.MAX_SAFE_INTEGER)
    .meta({ description: 'Only the uses that resolved to this version of the snippet.' })
    .optional(),
});

export const snippetUsageResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    snippet_name: z.string(),
    snippet_usage: z.array(
      z.object({ prompt_registry_id: z.int(), prompt_name: z.string(), version_numbers: z.array(z.int()) }),
    ),
    total_prompts_using_snippet: z.int(),
    label_usage: z.array(
      z.object({ prompt_registry_id: z.int(), prompt_name: z.string(), label_name: z.string() }),
    ),
    total_labels_using_snippet: z.int(),
  })
  .meta({ id: 'GetSnippetUsageResponse' });

/** An index patch (`{"0": value}`: replace the item at that index) or a whole new list. */
const listPatch = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);
const settingPatch = z.union([z.string(), z.record(z.string(), z.unknown())]);

/**
 * PATCH /rest/prompt-templates/{identifier}: PromptLayer's PatchPromptTemplateVersion. Absent fields
 * keep the base version's; `null` removes tools, functions, function_call, tool_choice and
 * response_format, and changes nothing for the others.
 */
export const patchTemplateBodySchema = z
  .object({
    version: z.int().positive().nullish(),
    label: labelNameSchema.nullish(),
    messages: listPatch.nullish(),
    tools: listPatch.nullish(),
    functions: listPatch.nullish(),
    function_call: settingPatch.nullish(),
    tool_choice: settingPatch.nullish(),
    content: listPatch.nullish(),
    model_parameters: z.record(z.string(), z.unknown()).nullish(),
    response_format: z.record(z.string(), z.unknown()).nullish(),
    commit_message: z.string().max(72).nullish(),
    release_labels: z.array(labelNameSchema).max(MAX_RELEASE_LABELS).nullish(),
  })
  .superRefine(versionOrLabel);
export type PatchTemplateBody = z.output<typeof patchTemplateBodySchema>;

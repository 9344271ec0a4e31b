import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { isoTimestamp, jsonObject, pageOf } from '#shared/platform/response-schemas.ts';
import { intParam, paginationQuery, queryBoolean, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
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

export const promptNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(512));
/** `{identifier}` of the template routes: a prompt name, or a template id as digits. */
export const templateIdentifierSchema = wellFormedString().check(z.minLength(1));

/** `metadata.model`: provider and name are required once a model is given. */
const modelSchema = z.looseObject({
  provider: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  model_config_display_name: z.nullish(z.string().check(z.maxLength(255))),
  base_model: z.nullish(z.string().check(z.maxLength(100))),
  parameters: z.nullish(jsonObject),
  display_params: z.nullish(jsonObject),
  api_type: z.nullish(z.string()),
});

/** Custom metadata fields besides `model` are kept as sent. */
const metadataSchema = z.looseObject({ model: z.nullish(modelSchema) });

export const publishBodySchema = z.object({
  prompt_template: z.object({
    prompt_name: promptNameSchema,
    // Every publish sets the tags; absent or null is the default [] (publish.ts).
    tags: z.nullish(z.array(z.string().check(z.maxLength(512)))),
    folder_id: z.nullish(z.int().check(z.positive())),
    workspace_id: z.nullish(z.int()),
  }),
  prompt_version: z.object({
    prompt_template: blueprintSchema,
    commit_message: z.nullish(z.string().check(z.maxLength(72))),
    metadata: z.nullish(metadataSchema),
  }),
  release_labels: z.nullish(z.array(labelNameSchema).check(z.maxLength(MAX_RELEASE_LABELS))),
  external_ids: z.nullish(publishExternalIdsSchema),
});
export type PublishBody = z.output<typeof publishBodySchema>;

export const getTemplateQuerySchema = z
  .object({
    ...versionSelectorQuery,
    resolve_snippets: z.optional(queryBoolean),
    include_llm_kwargs: z.optional(queryBoolean),
  })
  .check(z.superRefine(versionOrLabel));
export type GetTemplateQuery = z.output<typeof getTemplateQuerySchema>;

/**
 * POST /prompt-templates/{identifier} (what the SDK's `templates.get` sends). `input_variables` values
 * may be any JSON (jinja2 reads lists and objects); `metadata_filters` is accepted and ignored;
 * `skip_input_variable_rendering` is the SDK's client cache asking for the template unrendered.
 */
export const renderTemplateBodySchema = z
  .object({
    version: z.nullish(z.int().check(z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
    label: z.nullish(labelNameSchema),
    workspace_id: z.nullish(z.int()),
    provider: z.nullish(z.string().check(z.minLength(1), z.maxLength(64))),
    model: z.nullish(z.string().check(z.minLength(1), z.maxLength(256))),
    input_variables: z.nullish(jsonObject),
    metadata_filters: z.nullish(jsonObject),
    model_parameter_overrides: z.nullish(jsonObject),
    skip_input_variable_rendering: z.nullish(z.boolean()),
  })
  .check(z.superRefine(versionOrLabel));
export type RenderTemplateBody = z.output<typeof renderTemplateBodySchema>;

export const listTemplatesQuerySchema = headListQuerySchema({
  name: z.optional(wellFormedString()),
  tags: z.optional(z.union([z.string(), z.array(z.string())])),
  label: z.optional(wellFormedString()),
  status: z._default(z.enum(['active', 'deleted', 'all']), 'active'),
});
export type ListTemplatesQuery = z.output<typeof listTemplatesQuerySchema>;

export const moveLabelBodySchema = z.object({ prompt_version_number: z.int().check(z.gte(1)) });

/** POST /prompts/{prompt_id}/label: PromptLayer's create_prompt_label. */
export const createLabelBodySchema = z.extend(moveLabelBodySchema, { name: labelNameSchema });

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

const versionMetadata = z.nullable(metadataSchema);

export const snippetUseSchema = z.object({
  prompt_name: z.string(),
  version: z.int(),
  label: z
    .nullable(z.string())
    .clone()
    .register(z.globalRegistry, { description: 'The label the reference named; null for a version' }),
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
    commit_message: z.nullable(z.string()),
    tags: z.array(z.string()),
    created_at: isoTimestamp,
    snippets: z.array(snippetUseSchema),
    llm_kwargs: z
      .optional(jsonObject)
      .clone()
      .register(z.globalRegistry, { description: 'With include_llm_kwargs=true and a model' }),
    warning: z.optional(z.string()).clone().register(z.globalRegistry, {
      description: 'Registry tool references left out because they no longer resolve',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptTemplateRaw' });

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
    commit_message: z.nullable(z.string()),
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'PublishedPromptVersion' });

/** An item of GET /prompt-templates: the template with its latest version. */
export const templateListItemSchema = z
  .object({
    id: z.int(),
    prompt_name: z.string(),
    prompt_template: blueprintSchema,
    metadata: versionMetadata,
    commit_message: z.nullable(z.string()),
    version: z.int(),
    external_ids: z.array(externalIdSchema),
    is_snippet: z.boolean(),
    tags: z.array(z.string()),
    folder_id: z.nullable(z.int()),
    release_labels: z.array(z.string()),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptTemplateListItem' });

export const templateListSchema = pageOf(templateListItemSchema);

/** GET /prompt-templates/{identifier}/versions: page/per_page, newest first. */
export const listVersionsQuerySchema = z.object({ ...paginationQuery(100, 30) });

/** An item of GET /prompt-templates/{identifier}/versions. */
export const versionSummarySchema = z
  .object({
    id: z.int().clone().register(z.globalRegistry, { description: 'The prompt_version_id.' }),
    version_number: z.int(),
    commit_message: z.nullable(z.string()),
    created_at: isoTimestamp,
    release_labels: z
      .array(z.string())
      .clone()
      .register(z.globalRegistry, { description: 'The labels on this version now, in name order.' }),
    model: z
      .nullable(z.object({ provider: z.string(), name: z.string() }))
      .clone()
      .register(z.globalRegistry, {
        description: "The version's metadata.model provider and name; null without a model.",
      }),
    template_type: z.enum(['chat', 'completion']),
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptVersionSummary' });

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
  .clone()
  .register(z.globalRegistry, { id: 'PromptLabel' });

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
    commit_message: z.nullable(z.string()),
    created_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptVersion' });

/** The answer of POST /prompt-templates/{identifier}: the raw view, rendered, with two fields more. */
export const renderedTemplateSchema = z
  .extend(rawTemplateViewSchema, {
    llm_kwargs: z.nullable(jsonObject).clone().register(z.globalRegistry, {
      description: 'The provider request built from the rendered template; null without model metadata.',
    }),
    warning: z.nullable(z.string()).clone().register(z.globalRegistry, {
      description:
        'Registry tools left out, missing input variables, or why llm_kwargs could not be built; null when all is well.',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptTemplateRendered' });

export const snippetUsageQuerySchema = z.object({
  prompt_version_number: z.optional(
    intParam(1, Number.MAX_SAFE_INTEGER).clone().register(z.globalRegistry, {
      description: 'Only the uses that resolved to this version of the snippet.',
    }),
  ),
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
  .clone()
  .register(z.globalRegistry, { id: 'GetSnippetUsageResponse' });

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
    version: z.nullish(z.int().check(z.positive())),
    label: z.nullish(labelNameSchema),
    messages: z.nullish(listPatch),
    tools: z.nullish(listPatch),
    functions: z.nullish(listPatch),
    function_call: z.nullish(settingPatch),
    tool_choice: z.nullish(settingPatch),
    content: z.nullish(listPatch),
    model_parameters: z.nullish(z.record(z.string(), z.unknown())),
    response_format: z.nullish(z.record(z.string(), z.unknown())),
    commit_message: z.nullish(z.string().check(z.maxLength(72))),
    release_labels: z.nullish(z.array(labelNameSchema).check(z.maxLength(MAX_RELEASE_LABELS))),
  })
  .check(z.superRefine(versionOrLabel));
export type PatchTemplateBody = z.output<typeof patchTemplateBodySchema>;

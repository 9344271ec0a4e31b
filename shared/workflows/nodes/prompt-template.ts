import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { AppError } from '#shared/platform/errors.ts';
import { jsonObject, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import type { ModelMetadata, PromptBlueprint } from '#shared/prompts/llm-kwargs/blueprint.ts';
import { readTemplate } from '#shared/prompts/lookup.ts';
import { getRawTemplate, snippetLoader } from '#shared/prompts/read.ts';
import { renderTemplateView } from '#shared/prompts/rendered.ts';
import { labelNameSchema } from '#shared/prompts/schemas.ts';
import { resolveSnippets } from '#shared/prompts/snippets.ts';
import { expandToolReferences } from '#shared/prompts/tool-refs.ts';
import type { RawTemplateView } from '#shared/prompts/views.ts';
import { PROVIDERS, providerOf } from '#shared/providers/providers.ts';
import { callLlm } from './llm-call.ts';
import { type NodeContext, type NodeExecutor, NodeFailure } from './types.ts';

/**
 * PROMPT_TEMPLATE: renders a prompt (a version from the registry, or one given inline) with the node's
 * variables, sends it to its model's provider through the LLM port and answers the model's text. The
 * call is recorded as a request log linked to the prompt version.
 *
 * Configuration (exactly one of `template` and `inline_template`):
 * - `template: {name | prompt_name, version_number? | label?}`: the registry's version (latest by default);
 * - `inline_template: {prompt_template, metadata?: {model}, source_prompt_name?, source_prompt_version?}`;
 * - `prompt_template_variable_mappings: {templateVariable: inputOrNodeName}`; every input and dependency
 *   is also available under its own name;
 * - `engine: {provider, model, parameters?}`: the model to use instead of the template's.
 */
const templateRefSchema = z
  .strictObject({
    name: z.optional(wellFormedString().check(z.minLength(1), z.maxLength(512))),
    prompt_name: z.optional(wellFormedString().check(z.minLength(1), z.maxLength(512))),
    version_number: z.nullish(z.int().check(z.gte(1))),
    label: z.nullish(labelNameSchema),
    /** Sent by some clients beside the name; ignored. */
    prompt_id: z.optional(z.unknown()),
  })
  .check(
    z.refine((ref) => (ref.name ?? ref.prompt_name) !== undefined, {
      message: 'template needs name (or prompt_name)',
    }),
    z.refine((ref) => ref.version_number == null || ref.label == null, {
      message: 'template takes version_number or label, not both',
    }),
  );

const modelSchema = z.looseObject({
  provider: z.string().check(z.minLength(1), z.maxLength(64)),
  name: z.string().check(z.minLength(1), z.maxLength(256)),
  parameters: z.nullish(jsonObject),
  api_type: z.nullish(z.string().check(z.maxLength(64))),
});

const inlineTemplateSchema = z.looseObject({
  inline: z.optional(z.boolean()),
  prompt_template: blueprintSchema,
  metadata: z.nullish(z.looseObject({ model: z.nullish(modelSchema) })),
  source_prompt_name: z.nullish(z.string().check(z.maxLength(512))),
  source_prompt_version: z.nullish(z.int().check(z.gte(1))),
});

export const engineSchema = z.strictObject({
  provider: z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(', ')}` }),
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  parameters: z.nullish(jsonObject),
});
export type Engine = z.infer<typeof engineSchema>;

export const promptTemplateConfigSchema = z
  .looseObject({
    template: z.nullish(templateRefSchema),
    inline_template: z.nullish(inlineTemplateSchema),
    prompt_template_variable_mappings: z.nullish(
      z.record(z.string(), wellFormedString().check(z.minLength(1), z.maxLength(255))),
    ),
    engine: z.nullish(engineSchema),
  })
  .check(
    z.refine((config) => (config.template == null) !== (config.inline_template == null), {
      message: 'give exactly one of template and inline_template',
    }),
  );
export type PromptTemplateConfig = z.infer<typeof promptTemplateConfigSchema>;

export const promptTemplate: NodeExecutor<PromptTemplateConfig> = {
  config: promptTemplateConfigSchema,
  async execute(config, context) {
    const variables = templateVariables(config.prompt_template_variable_mappings ?? {}, context.inputs);
    const raw = await loadTemplate(config, context.workspaceId);
    const engine = config.engine ?? undefined;
    let rendered: Awaited<ReturnType<typeof renderTemplateView>>;
    try {
      rendered = await renderTemplateView(
        raw,
        { provider: engine?.provider, model: engine?.model, model_parameter_overrides: engine?.parameters },
        variables,
      );
    } catch (error) {
      throw asNodeFailure(error, 'TEMPLATE_RENDER_ERROR: ');
    }
    const model = rendered.metadata?.model as ModelMetadata | undefined;
    if (!rendered.llm_kwargs || !model) {
      throw new NodeFailure(
        `the prompt has no model to call: ${rendered.warning ?? 'set metadata.model on the prompt version or engine {provider, model} on the node'}`,
      );
    }
    const provider = providerOf(model.provider);
    if (!provider) {
      throw new NodeFailure(
        `provider ${model.provider} is not supported by PROMPT_TEMPLATE nodes (supported: ${PROVIDERS.join(', ')})`,
      );
    }
    return callLlm(context, {
      provider,
      body: rendered.llm_kwargs,
      prompt: raw.id > 0 ? { id: raw.id, versionNumber: raw.version } : undefined,
      variables,
      warning: rendered.warning,
    });
  },
};

/**
 * The variables a template is rendered with: every input and dependency under its own name, then each
 * mapping's template variable set to the value of the input or node it names (an unknown name fails).
 */
export function templateVariables(
  mappings: Readonly<Record<string, string>>,
  inputs: NodeContext['inputs'],
): Record<string, unknown> {
  const variables: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(inputs)) variables[name] = value;
  for (const [variable, source] of Object.entries(mappings)) {
    if (!Object.hasOwn(inputs, source)) {
      throw new NodeFailure(
        `prompt_template_variable_mappings.${variable} names ${source}, which is neither an input variable nor a dependency of the node`,
      );
    }
    variables[variable] = inputs[source];
  }
  return variables;
}

/**
 * The template to render, as the registry's raw read gives it: snippets and registry tool references
 * expanded (an inline template's references as well, with the same function).
 */
async function loadTemplate(config: PromptTemplateConfig, workspaceId: number): Promise<RawTemplateView> {
  try {
    if (config.template) {
      const { template } = config;
      return await getRawTemplate(workspaceId, (template.name ?? template.prompt_name) as string, {
        version: template.version_number ?? undefined,
        label: template.label ?? undefined,
        resolveSnippets: true,
        includeLlmKwargs: false,
      });
    }
    const inline = config.inline_template!;
    const { blueprint, snippets } = await resolveSnippets(
      inline.prompt_template as PromptBlueprint,
      snippetLoader(workspaceId),
      { loc: ['configuration', 'inline_template', 'prompt_template'] },
    );
    const [tools, source] = await Promise.all([
      expandToolReferences(workspaceId, blueprint),
      sourceVersion(workspaceId, inline.source_prompt_name, inline.source_prompt_version),
    ]);
    return {
      success: true,
      id: source?.id ?? 0,
      prompt_name: inline.source_prompt_name ?? '',
      version: source?.version ?? 0,
      workspace_id: workspaceId,
      prompt_template: tools.blueprint as RawTemplateView['prompt_template'],
      metadata: inline.metadata?.model ? { model: inline.metadata.model } : null,
      commit_message: null,
      tags: [],
      created_at: new Date(0).toISOString(),
      snippets,
      ...(tools.warnings.length ? { warning: tools.warnings.join('; ') } : {}),
    };
  } catch (error) {
    throw asNodeFailure(error);
  }
}

/** The registry version an inline template says it came from, when it exists: the request log links to it. */
async function sourceVersion(
  workspaceId: number,
  name: string | null | undefined,
  version: number | null | undefined,
): Promise<{ id: number; version: number } | undefined> {
  if (!name) return undefined;
  try {
    const found = await readTemplate(workspaceId, name, { version: version ?? undefined });
    return { id: found.head.id, version: found.version.number };
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

/** A 4xx of the registry or the renderer (unknown template, label, bad template) fails the node with its message. */
function asNodeFailure(error: unknown, prefix = ''): unknown {
  if (error instanceof AppError && error.status < 500) return new NodeFailure(`${prefix}${error.message}`);
  return error;
}

import { forbidden } from '#shared/platform/errors.ts';
import {
  type PromptBlueprint as KwargsBlueprint,
  LlmKwargsError,
  type ModelMetadata,
} from './llm-kwargs/blueprint.ts';
import { buildLlmKwargs, renderLlmKwargs } from './llm-kwargs/build.ts';
import { defaultApiType, sameFamily } from './llm-kwargs/targets.ts';
import { getRawTemplate } from './read.ts';
import { renderBlueprint, withMessageFormats } from './render/blueprint.ts';
import type { RenderTemplateBody } from './schemas.ts';
import type { RawTemplateView } from './views.ts';

/**
 * POST /prompt-templates/{identifier} (the SDK's `templates.get`): the template as the GET reads it
 * (same lookup, snippets, cache and errors), rendered with the call's input variables, with `llm_kwargs`
 * for its model (or the provider and model the call names) and a `warning` for what the call lacks.
 */
export interface RenderedTemplateView extends Omit<RawTemplateView, 'llm_kwargs' | 'warning'> {
  /** The provider request built from the rendered template; null without model metadata. */
  llm_kwargs: Record<string, unknown> | null;
  /** Missing input variables, or why llm_kwargs could not be built; null when all is well. */
  warning: string | null;
}

export type RenderRequest = Pick<
  RenderTemplateBody,
  'provider' | 'model' | 'model_parameter_overrides' | 'skip_input_variable_rendering'
>;

export async function getRenderedTemplate(
  workspaceId: number,
  identifier: string,
  body: RenderTemplateBody,
  /** `input_variables` exactly as sent (any key, `__proto__` included). */
  variables: Record<string, unknown> | null | undefined,
  bypassCache = false,
): Promise<RenderedTemplateView> {
  if (body.workspace_id != null && body.workspace_id !== workspaceId) {
    throw forbidden(`This API key may not read workspace ${body.workspace_id}`);
  }
  // The GET's default options: both routes share one cached read per template version.
  const raw = await getRawTemplate(
    workspaceId,
    identifier,
    {
      version: body.version ?? undefined,
      label: body.label ?? undefined,
      resolveSnippets: true,
      includeLlmKwargs: false,
    },
    bypassCache,
  );
  return await renderTemplateView(raw, body, variables);
}

/**
 * The rendered answer from a raw one (which it does not modify); pure, but for loading the Jinja
 * interpreter on first use. Without `input_variables` (or with `skip_input_variable_rendering`) the
 * template stays unrendered, as PromptLayer answers it.
 */
export async function renderTemplateView(
  raw: RawTemplateView,
  request: RenderRequest,
  variables: Record<string, unknown> | null | undefined,
): Promise<RenderedTemplateView> {
  // Registry tool references the read left out come first.
  const warnings: string[] = raw.warning ? [raw.warning] : [];
  let blueprint = withMessageFormats(raw.prompt_template);
  if (variables && !request.skip_input_variable_rendering) {
    const rendered = await renderBlueprint(blueprint, variables);
    blueprint = rendered.blueprint;
    if (rendered.missing.length) warnings.push(`Missing input variables: ${listNames(rendered.missing)}`);
  }

  const stored = (raw.metadata?.model ?? undefined) as ModelMetadata | undefined;
  const model = chosenModel(stored, request);
  let llmKwargs: Record<string, unknown> | null = null;
  if (model) {
    const kwargsBlueprint = blueprint as KwargsBlueprint;
    const overrides = request.model_parameter_overrides;
    if (request.provider || request.model) {
      // What the call asked for is what cannot be built: a 422 pointing at it.
      const loc = ['body', request.provider ? 'provider' : 'model'];
      llmKwargs = renderLlmKwargs(kwargsBlueprint, model, { loc, overrides });
    } else {
      // The stored model may be one no shape exists for (another provider): the template still reads.
      try {
        llmKwargs = buildLlmKwargs(kwargsBlueprint, model, overrides);
      } catch (error) {
        if (!(error instanceof LlmKwargsError)) throw error;
        warnings.push(`llm_kwargs are not available for this template: ${error.message}`);
      }
    }
  }

  const metadata = model && model !== stored ? { ...raw.metadata, model } : raw.metadata;
  const { llm_kwargs: _unused, warning: _read, ...view } = raw;
  return {
    ...view,
    prompt_template: blueprint,
    metadata,
    llm_kwargs: llmKwargs,
    warning: warnings.length ? warnings.join('; ') : null,
  };
}

/** Names a warning lists; a template may use thousands of variables. */
const MAX_WARNED_NAMES = 50;

function listNames(names: string[]): string {
  const listed = names.slice(0, MAX_WARNED_NAMES).join(', ');
  return names.length > MAX_WARNED_NAMES ? `${listed} and ${names.length - MAX_WARNED_NAMES} more` : listed;
}

/**
 * The model llm_kwargs are built for: the stored one, with the call's `provider` and `model` in place of
 * its own. A provider of another family drops the stored `api_type` for the new provider's default, so
 * that the answer's `metadata.model` describes the request in `llm_kwargs` (the SDK's `run()` reads it).
 * A template without model metadata gets one only when the call names both provider and model.
 */
function chosenModel(stored: ModelMetadata | undefined, request: RenderRequest): ModelMetadata | undefined {
  const { provider, model } = request;
  if (!provider && !model) return stored;
  if (!stored)
    return provider && model ? { provider, name: model, api_type: defaultApiType(provider) } : undefined;
  const chosen: ModelMetadata = { ...stored };
  if (model) chosen.name = model;
  if (provider && provider !== stored.provider) {
    chosen.provider = provider;
    if (!stored.provider || !sameFamily(stored.provider, provider))
      chosen.api_type = defaultApiType(provider);
  }
  return chosen;
}

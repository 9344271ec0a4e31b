/**
 * Renders a prompt blueprint with a call's input variables (POST /prompt-templates/{identifier}). Pure.
 *
 * What is rendered: the text of every `text` content block, of every chat message and of a completion
 * template's content, as PromptLayer and its SDK render them. A chat message's format is its own
 * `template_format`, else the template's, else f-string. Tool definitions, tool calls, media and other
 * blocks are left as they are. A placeholder message (`role: "placeholder"`, `name`) is replaced by the
 * messages of the variable of that name (a list of messages, inserted as given, not rendered).
 *
 * Variables the template uses and the call does not give are returned as `missing`: f-string leaves
 * their placeholders as they are, jinja2 renders them as nothing, a placeholder message stays.
 * One RenderBudget covers the whole template (limits.ts).
 */

import { type ContentBlock, messageSchema, type PromptBlueprint } from '#shared/blueprints/schema.ts';
import { AppError, invalid } from '#shared/platform/errors.ts';
import * as z from '#shared/platform/zod.ts';
import { type Rendered, renderFString, type Variables } from './fstring.ts';
import { type JinjaRenderer, loadJinja } from './jinja.ts';
import { RenderBudget, TemplateRenderError } from './limits.ts';

export type TemplateFormat = 'f-string' | 'jinja2';

export interface RenderedBlueprint {
  blueprint: PromptBlueprint;
  /** Variables the template uses that the call did not give, in order of first use. */
  missing: string[];
}

type Loc = (string | number)[];
type Message = Extract<PromptBlueprint, { type: 'chat' }>['messages'][number];

const formatOf = (format: unknown): TemplateFormat => (format === 'jinja2' ? 'jinja2' : 'f-string');

export async function renderBlueprint(
  blueprint: PromptBlueprint,
  variables: Variables,
): Promise<RenderedBlueprint> {
  const budget = new RenderBudget();
  const missing = new Set<string>();
  // The interpreter is loaded only for a template that has jinja2 text.
  const jinja = usesJinja(blueprint) ? await loadJinja() : undefined;
  let jinjaScope: ReturnType<JinjaRenderer['variables']> | undefined;

  const renderText = (text: string, format: TemplateFormat, loc: Loc): string => {
    try {
      let result: Rendered;
      if (jinja && format === 'jinja2') {
        jinjaScope ??= jinja.variables(variables, budget);
        result = jinja.render(text, jinjaScope, budget);
      } else {
        result = renderFString(text, variables, budget);
      }
      for (const name of result.missing) missing.add(name);
      return result.text;
    } catch (error) {
      if (error instanceof TemplateRenderError) throw templateError(loc, format, error);
      throw error;
    }
  };
  const renderBlocks = (blocks: ContentBlock[], format: TemplateFormat, loc: Loc): ContentBlock[] =>
    blocks.map((block, index) =>
      block.type === 'text' && typeof block.text === 'string'
        ? { ...block, text: renderText(block.text, format, [...loc, index, 'text']) }
        : block,
    );

  if (blueprint.type === 'completion') {
    const content = renderBlocks(blueprint.content, formatOf(blueprint.template_format), [
      'prompt_template',
      'content',
    ]);
    return { blueprint: { ...blueprint, content }, missing: [...missing] };
  }
  const messages = withMessageFormats(blueprint).messages.flatMap((message, index): Message[] => {
    if (message.role === 'placeholder') {
      const name = typeof message.name === 'string' ? message.name : '';
      if (!Object.hasOwn(variables, name)) {
        missing.add(name);
        return [message];
      }
      return placeholderMessages(name, variables[name]);
    }
    if (!message.content) return [message];
    const format = formatOf(message.template_format);
    const content = renderBlocks(message.content, format, ['prompt_template', 'messages', index, 'content']);
    return [{ ...message, content }];
  });
  return { blueprint: { ...blueprint, messages }, missing: [...missing] };
}

/** Whether any text of the template is rendered as jinja2 (the formats as renderBlueprint reads them). */
function usesJinja(blueprint: PromptBlueprint): boolean {
  if (blueprint.type === 'completion') return formatOf(blueprint.template_format) === 'jinja2';
  return withMessageFormats(blueprint).messages.some(
    (message) => message.role !== 'placeholder' && formatOf(message.template_format) === 'jinja2',
  );
}

/**
 * A chat template whose messages each carry their format when the template sets jinja2 for all: the
 * PromptLayer SDK's client-side cache renders a message by its own `template_format` only.
 */
export function withMessageFormats<T extends PromptBlueprint>(blueprint: T): T {
  if (blueprint.type !== 'chat' || blueprint.template_format !== 'jinja2') return blueprint;
  if (blueprint.messages.every((message) => message.template_format !== undefined)) return blueprint;
  return {
    ...blueprint,
    messages: blueprint.messages.map((message) =>
      message.template_format === undefined ? { ...message, template_format: 'jinja2' } : message,
    ),
  };
}

const placeholderSchema = z.array(messageSchema, { error: 'must be a list of messages' });

function placeholderMessages(name: string, value: unknown): Message[] {
  const parsed = placeholderSchema.safeParse(value);
  if (parsed.success) return parsed.data.filter((message) => message.role !== 'placeholder');
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` (at ${issue.path.join('.')})` : '';
  throw invalid(
    ['body', 'input_variables', name],
    `the placeholder message "${name}" takes a list of messages: ${issue?.message ?? 'invalid'}${where}`,
  );
}

function templateError(loc: Loc, format: TemplateFormat, error: TemplateRenderError): AppError {
  const where = loc
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`))
    .join('')
    .slice(1);
  return new AppError(422, 'template_render_error', `Cannot render ${where} (${format}): ${error.message}`, [
    { loc, msg: error.message, type: error.overLimit ? 'template_limit' : 'template_error' },
  ]);
}

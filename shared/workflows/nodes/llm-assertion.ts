import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { LlmKwargsError, type PromptBlueprint } from '#shared/prompts/llm-kwargs/blueprint.ts';
import { buildLlmKwargs } from '#shared/prompts/llm-kwargs/build.ts';
import { callLlm } from './llm-call.ts';
import { engineSchema } from './prompt-template.ts';
import { type NodeContext, type NodeExecutor, NodeFailure } from './types.ts';

/**
 * LLM_ASSERTION: asks a model whether the value of `source` satisfies an assertion, and answers a
 * boolean. The assertion is `prompt` (text) or the value of `prompt_source`; an assertion that is a JSON
 * array of strings asks each one and answers `{assertion: boolean}`.
 *
 * The model answers one word, true or false (yes / no are read as such); any other answer fails the
 * node. Model: `engine: {provider, model, parameters?}`, default DEFAULT_ASSERTION_ENGINE.
 */
export const DEFAULT_ASSERTION_ENGINE = { provider: 'openai', model: 'gpt-4o-mini' } as const;
export const MAX_ASSERTIONS = 20;

const nameSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));

export const llmAssertionConfigSchema = z
  .looseObject({
    source: nameSchema,
    prompt: z.nullish(
      z.union([
        z.string().check(z.minLength(1), z.maxLength(100_000)),
        z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_ASSERTIONS)),
      ]),
    ),
    prompt_source: z.nullish(nameSchema),
    engine: z.nullish(engineSchema),
  })
  .check(
    z.refine((config) => (config.prompt == null) !== (config.prompt_source == null), {
      message: 'give exactly one of prompt and prompt_source',
    }),
  );
export type LlmAssertionConfig = z.infer<typeof llmAssertionConfigSchema>;

export const ASSERTION_INSTRUCTIONS =
  'You check whether a text satisfies an assertion. Answer with exactly one word: true if it does, false if it does not.';

export const llmAssertion: NodeExecutor<LlmAssertionConfig> = {
  config: llmAssertionConfigSchema,
  async execute(config, context) {
    const text = asText(read(context, config.source));
    const assertion =
      config.prompt != null ? asText(config.prompt) : asText(read(context, config.prompt_source as string));
    const many = assertionList(assertion);
    if (!many) return ask(config, context, text, assertion);
    const answers: [string, boolean][] = [];
    // One at a time: a provider's rate limit is the likelier failure than slowness.
    for (const one of many) answers.push([one, await ask(config, context, text, one)]);
    // fromEntries: an assertion called `__proto__` is a key like any other.
    return Object.fromEntries(answers);
  },
};

function read(context: NodeContext, name: string): unknown {
  if (!Object.hasOwn(context.inputs, name)) {
    throw new NodeFailure(`${name} is neither an input variable nor a dependency of the node`);
  }
  return context.inputs[name];
}

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value);

/** A JSON array of strings given as the assertion: each is asked on its own. */
export function assertionList(assertion: string): string[] | undefined {
  const trimmed = assertion.trim();
  if (!trimmed.startsWith('[')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) return undefined;
  if (parsed.length === 0) throw new NodeFailure('the list of assertions is empty');
  if (parsed.length > MAX_ASSERTIONS) throw new NodeFailure(`at most ${MAX_ASSERTIONS} assertions per node`);
  return [...new Set(parsed as string[])];
}

/** true / false (or yes / no) as the first word of the answer, else undefined. */
export function parseVerdict(answer: string): boolean | undefined {
  const word = /^[\s"'`*_([{]*(true|false|yes|no)\b/i.exec(answer)?.[1]?.toLowerCase();
  if (word === undefined) return undefined;
  return word === 'true' || word === 'yes';
}

async function ask(
  config: LlmAssertionConfig,
  context: NodeContext,
  text: string,
  assertion: string,
): Promise<boolean> {
  const engine = config.engine ?? DEFAULT_ASSERTION_ENGINE;
  const blueprint: PromptBlueprint = {
    type: 'chat',
    messages: [
      { role: 'system', content: [{ type: 'text', text: ASSERTION_INSTRUCTIONS }] },
      { role: 'user', content: [{ type: 'text', text: `Text:\n${text}\n\nAssertion: ${assertion}` }] },
    ],
  };
  let body: Record<string, unknown>;
  try {
    body = buildLlmKwargs(blueprint, {
      provider: engine.provider,
      name: engine.model,
      parameters: { temperature: 0, ...(config.engine?.parameters ?? {}) },
    });
  } catch (error) {
    if (error instanceof LlmKwargsError)
      throw new NodeFailure(`cannot call ${engine.provider}: ${error.message}`);
    throw error;
  }
  const answer = await callLlm(context, { provider: engine.provider, body });
  const verdict = parseVerdict(answer);
  if (verdict === undefined) {
    throw new NodeFailure(
      `the model answered neither true nor false: ${JSON.stringify(answer.slice(0, 200))}`,
    );
  }
  return verdict;
}

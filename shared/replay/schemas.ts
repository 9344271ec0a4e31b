import { blueprintSchema, messageSchema } from '#shared/blueprints/schema.ts';
import { jsonObject, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { labelNameSchema } from '#shared/prompts/schemas.ts';
import { PROVIDERS } from '#shared/providers/providers.ts';
import { logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';

/**
 * What a replay may change (POST .../requests/{id}/replay and .../replay-batch), each field checked here
 * so that a bad override is a 422 before anything is sent or written. Bounds: docs/replay.md.
 */

/** Messages a replayed request may carry (an override's, or the logged request's own). */
export const MAX_REPLAY_MESSAGES = 1_000;
/** Tools an override may give. */
export const MAX_REPLAY_TOOLS = 128;

/**
 * Keys `parameters` may not set, and why: the conversation and the model have their own overrides, and
 * a replay never streams.
 */
const CONVERSATION = 'give the conversation as messages, prompt_template or prompt';
export const RESERVED_PARAMETERS: Readonly<Record<string, string>> = {
  model: 'use the model override',
  messages: CONVERSATION,
  input: CONVERSATION,
  instructions: CONVERSATION,
  system: CONVERSATION,
  prompt: CONVERSATION,
  stream: 'a replay never streams',
  tools: 'use the tools override',
  tool_choice: 'use the tool_choice override',
};

const positiveInt = z.int().check(z.gte(1));

/** The usual sampling parameters, type-checked in any provider's spelling; any other key passes as given. */
const parametersSchema = z
  .pipe(
    jsonObject,
    z.looseObject({
      temperature: z.optional(z.number().check(z.gte(0), z.lte(2))),
      top_p: z.optional(z.number().check(z.gte(0), z.lte(1))),
      top_k: z.optional(positiveInt),
      max_tokens: z.optional(positiveInt),
      max_completion_tokens: z.optional(positiveInt),
      max_output_tokens: z.optional(positiveInt),
      frequency_penalty: z.optional(z.number().check(z.gte(-2), z.lte(2))),
      presence_penalty: z.optional(z.number().check(z.gte(-2), z.lte(2))),
      seed: z.optional(z.int()),
      n: z.optional(z.int().check(z.gte(1), z.lte(1, 'a replay asks for one answer'))),
    }),
  )
  .check(
    z.superRefine((parameters, ctx) => {
      for (const [key, why] of Object.entries(RESERVED_PARAMETERS)) {
        if (Object.hasOwn(parameters, key)) {
          ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not a parameter here: ${why}` });
        }
      }
    }),
  );

const promptRefSchema = z
  .strictObject({
    name: wellFormedString().check(z.minLength(1), z.maxLength(512)),
    version: z.nullish(positiveInt),
    label: z.nullish(labelNameSchema),
  })
  .check(
    z.refine((ref) => ref.version == null || ref.label == null, {
      message: 'prompt takes version or label, not both',
    }),
  );

export const replayOverridesShape = {
  provider: z.nullish(z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(', ')}` })),
  model: z.nullish(wellFormedString().check(z.minLength(1), z.maxLength(256))),
  /** Merged into the request's parameters, spelled as the provider spells them. */
  parameters: z.nullish(parametersSchema),
  /** The conversation to send instead of the logged one, as blueprint messages (the log's `input.messages`). */
  messages: z.nullish(
    z
      .array(messageSchema)
      .check(
        z.minLength(1),
        z.maxLength(MAX_REPLAY_MESSAGES, `a replay sends at most ${MAX_REPLAY_MESSAGES} messages`),
      ),
  ),
  /** A whole blueprint to send instead of the logged input. */
  prompt_template: z.nullish(blueprintSchema),
  /** A registry prompt version to render and send instead (latest without version or label). */
  prompt: z.nullish(promptRefSchema),
  /** The variables `prompt` is rendered with; the logged request's input variables by default. */
  input_variables: z.nullish(jsonObject),
  /** The request's tools and tool choice, in the provider's own shape. */
  tools: z.nullish(z.array(jsonObject).check(z.maxLength(MAX_REPLAY_TOOLS))),
  tool_choice: z.nullish(z.union([z.string().check(z.minLength(1), z.maxLength(64)), jsonObject])),
  /** The new log's tags and metadata (the original's by default). */
  tags: z.optional(logRequestBodySchema.shape.tags),
  metadata: z.optional(logRequestBodySchema.shape.metadata),
};

type Overrides = { [K in keyof typeof replayOverridesShape]: z.output<(typeof replayOverridesShape)[K]> };

/** The checks across fields: one source of the conversation, variables only for a prompt. */
export function checkOverrides(overrides: Partial<Overrides>, ctx: z.core.$RefinementCtx): void {
  const sources = (['messages', 'prompt_template', 'prompt'] as const).filter(
    (name) => overrides[name] != null,
  );
  if (sources.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: [sources[1]!],
      message: `give one of messages, prompt_template and prompt (got ${sources.join(', ')})`,
    });
  }
  if (overrides.input_variables != null && overrides.prompt == null) {
    ctx.addIssue({ code: 'custom', path: ['input_variables'], message: 'input_variables need prompt' });
  }
  const blueprint = overrides.prompt_template;
  if (blueprint?.type === 'chat' && blueprint.messages.length > MAX_REPLAY_MESSAGES) {
    ctx.addIssue({
      code: 'custom',
      path: ['prompt_template', 'messages'],
      message: `a replay sends at most ${MAX_REPLAY_MESSAGES} messages`,
    });
  }
}

export const replayBodySchema = z.strictObject(replayOverridesShape).check(z.superRefine(checkOverrides));
export type ReplayOverrides = z.output<typeof replayBodySchema>;

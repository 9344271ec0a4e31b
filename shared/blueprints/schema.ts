import * as z from '#shared/platform/zod.ts';

/**
 * The Prompt Blueprint: the common form of a log's input/output and of a template version. Unknown
 * fields are kept (loose objects) so that what a client sends round-trips unchanged; what the API fixes
 * is enforced: content is always an array of blocks, never a plain string.
 */
const annotationSchema = z.looseObject({
  type: z.string(),
  title: z.nullish(z.string()),
  url: z.nullish(z.string()),
  start_index: z.nullish(z.int()),
  end_index: z.nullish(z.int()),
  cited_text: z.nullish(z.string()),
  encrypted_index: z.nullish(z.string()),
});

export const contentBlockSchema = z
  .looseObject({
    type: z.string().check(z.minLength(1)),
    text: z.optional(z.string()),
    id: z.nullish(z.string()),
    annotations: z.nullish(z.array(annotationSchema)),
    thought_signature: z.nullish(z.string()),
  })
  .check(
    z.superRefine((block, ctx) => {
      if (block.type === 'text' && typeof block.text !== 'string') {
        ctx.addIssue({ code: 'custom', path: ['text'], message: 'a text block needs a string `text`' });
      }
    }),
  );

const blocks = z.array(contentBlockSchema, { error: 'content must be an array of content blocks' });

export const MESSAGE_ROLES = [
  'system',
  'user',
  'assistant',
  'developer',
  'tool',
  'function',
  'placeholder',
] as const;

export const messageSchema = z.looseObject({ role: z.enum(MESSAGE_ROLES), content: z.nullish(blocks) }).check(
  z.superRefine((message, ctx) => {
    // Only an assistant turn (e.g. tool calls alone), a function result or a placeholder may omit content.
    const mayOmit =
      message.role === 'assistant' || message.role === 'placeholder' || message.role === 'function';
    if (!mayOmit && message.content == null) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: 'content must be an array of content blocks',
      });
    }
  }),
);

export const TEMPLATE_FORMATS = ['f-string', 'jinja2'] as const;

const common = {
  input_variables: z.optional(z.array(z.string())),
  template_format: z.optional(z.enum(TEMPLATE_FORMATS)),
};

export const chatBlueprintSchema = z.looseObject({
  type: z.literal('chat'),
  messages: z.array(messageSchema),
  tools: z.nullish(z.array(z.looseObject({}))),
  functions: z.nullish(z.array(z.looseObject({}))),
  ...common,
});

export const completionBlueprintSchema = z.looseObject({
  type: z.literal('completion'),
  content: blocks,
  ...common,
});

export const blueprintSchema = z
  .discriminatedUnion('type', [chatBlueprintSchema, completionBlueprintSchema], {
    error: (issue) =>
      issue.input === undefined
        ? 'Field required'
        : 'must be a prompt blueprint with type "chat" or "completion"',
  })
  .clone()
  .register(z.globalRegistry, { id: 'PromptBlueprint' });

export type PromptBlueprint = z.infer<typeof blueprintSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;

/** The blueprint with the API's defaults filled in (`input_variables: []`, `template_format: 'f-string'`). */
export function withBlueprintDefaults<T extends PromptBlueprint>(blueprint: T): T {
  return {
    ...blueprint,
    input_variables: blueprint.input_variables ?? [],
    template_format: blueprint.template_format ?? 'f-string',
  };
}

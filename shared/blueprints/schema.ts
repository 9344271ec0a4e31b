import * as z from 'zod';

/**
 * The Prompt Blueprint: the common form of a log's input/output and of a template version. Unknown
 * fields are kept (loose objects) so that what a client sends round-trips unchanged; what the API fixes
 * is enforced: content is always an array of blocks, never a plain string.
 */
const annotationSchema = z.looseObject({
  type: z.string(),
  title: z.string().nullish(),
  url: z.string().nullish(),
  start_index: z.int().nullish(),
  end_index: z.int().nullish(),
  cited_text: z.string().nullish(),
  encrypted_index: z.string().nullish(),
});

export const contentBlockSchema = z
  .looseObject({
    type: z.string().min(1),
    text: z.string().optional(),
    id: z.string().nullish(),
    annotations: z.array(annotationSchema).nullish(),
    thought_signature: z.string().nullish(),
  })
  .superRefine((block, ctx) => {
    if (block.type === 'text' && typeof block.text !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'a text block needs a string `text`' });
    }
  });

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

export const messageSchema = z
  .looseObject({ role: z.enum(MESSAGE_ROLES), content: blocks.nullish() })
  .superRefine((message, ctx) => {
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
  });

export const TEMPLATE_FORMATS = ['f-string', 'jinja2'] as const;

const common = {
  input_variables: z.array(z.string()).optional(),
  template_format: z.enum(TEMPLATE_FORMATS).optional(),
};

export const chatBlueprintSchema = z.looseObject({
  type: z.literal('chat'),
  messages: z.array(messageSchema),
  tools: z.array(z.looseObject({})).nullish(),
  functions: z.array(z.looseObject({})).nullish(),
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
  .meta({ id: 'PromptBlueprint' });

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

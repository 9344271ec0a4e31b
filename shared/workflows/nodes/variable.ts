import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';

/**
 * VARIABLE: a constant. `{value: {type: "string", value: "text"}}` answers the text;
 * `{value: {type: "json", value: <any JSON>}}` answers the value, a string holding JSON parsed (so a
 * value typed as text in a form, such as "{\"a\": 1}" or "42", is the object or the number).
 */
const config = z.object({
  value: z.discriminatedUnion('type', [
    z.object({ type: z.literal('string'), value: z.string() }),
    z.object({ type: z.literal('json'), value: z.unknown() }),
  ]),
});

export const variable: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ value }) {
    if (value.type === 'string' || typeof value.value !== 'string') return value.value ?? null;
    try {
      return JSON.parse(value.value);
    } catch {
      return value.value;
    }
  },
};

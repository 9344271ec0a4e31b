import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { readSource, sourceName, textOf } from './values.ts';

/**
 * CONTAINS: whether the source's text holds `value` (or the text of `value_source`), ignoring case.
 * Exactly one of `value` and `value_source`.
 */
const config = z
  .object({
    source: sourceName,
    value: z.nullish(z.union([z.string().check(z.maxLength(100_000)), z.number()])),
    value_source: z.nullish(sourceName),
  })
  .check(
    z.refine((c) => (c.value == null) !== (c.value_source == null), {
      message: 'give exactly one of value and value_source',
      path: ['value'],
    }),
  );

export const contains: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, value, value_source }, context) {
    const text = textOf(readSource(context, source)).toLowerCase();
    const needle = value_source == null ? String(value) : textOf(readSource(context, value_source));
    return text.includes(needle.toLowerCase());
  },
};

import { isDeepStrictEqual } from 'node:util';
import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { jsonOf, jsonPathMatches, jsonPathSchema, readSource, sourceName, textOf } from './values.ts';

/**
 * COMPARE: whether two values are equal. `STRING` compares them as text (a non-string as its JSON);
 * `JSON` parses strings holding JSON and compares deeply (object keys in any order, types strict),
 * after `json_path` when given (the lists of all matches are compared).
 */
const config = z
  .object({
    sources: z.tuple([sourceName, sourceName]),
    comparison_type: z.object({
      type: z.enum(['STRING', 'JSON']),
      json_path: z.nullish(jsonPathSchema),
    }),
  })
  .check(
    z.refine((c) => c.comparison_type.type === 'JSON' || c.comparison_type.json_path == null, {
      message: 'json_path applies to comparison_type JSON only',
      path: ['comparison_type', 'json_path'],
    }),
  );

export const compare: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ sources, comparison_type: { type, json_path } }, context) {
    const [a, b] = sources.map((name) => readSource(context, name));
    if (type === 'STRING') return textOf(a) === textOf(b);
    const [x, y] = sources.map((name, i) => jsonOf(name, i === 0 ? a : b));
    if (json_path == null) return isDeepStrictEqual(x, y);
    return isDeepStrictEqual(await jsonPathMatches(x, json_path), await jsonPathMatches(y, json_path));
  },
};

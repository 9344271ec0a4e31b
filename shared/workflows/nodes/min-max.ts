import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { NodeFailure } from './types.ts';
import { jsonOf, jsonPathMatches, jsonPathSchema, numericSource, readSource, sourceName } from './values.ts';

/**
 * MIN_MAX: the smallest or largest number in the source: an array (or a string holding JSON), or with
 * `json_path` every match of it (a single match that is an array stands for its items). Items are
 * numbers or numeric strings; nulls are passed over; any other item, or no number at all, fails the node.
 */
const config = z.object({
  source: sourceName,
  type: z.enum(['min', 'max']),
  json_path: z.nullish(jsonPathSchema),
});

export const minMax: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, type, json_path }, context) {
    const value = jsonOf(source, readSource(context, source));
    let items: unknown[];
    if (json_path == null) {
      if (!Array.isArray(value))
        throw new NodeFailure(`source "${source}" is not an array; give a json_path`);
      items = value;
    } else {
      const matches = await jsonPathMatches(value, json_path);
      items = matches.length === 1 && Array.isArray(matches[0]) ? matches[0] : matches;
    }
    const numbers = items.filter((item) => item !== null).map((item) => numericSource(source, item));
    if (numbers.length === 0)
      throw new NodeFailure(`source "${source}" holds no number to take the ${type} of`);
    return numbers.reduce((best, n) => (type === 'min' ? Math.min(best, n) : Math.max(best, n)));
  },
};

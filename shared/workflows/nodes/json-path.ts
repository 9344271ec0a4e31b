import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { jsonOf, jsonPathMatches, jsonPathSchema, readSource, sourceName } from './values.ts';

/**
 * JSON_PATH: what a JSONPath (RFC 9535, evaluated without any code evaluation) selects in the source,
 * a string source parsed as JSON first (a NodeFailure when it is not JSON). `return_first_match` (the
 * default) answers the first match or null; false answers the array of every match.
 */
const config = z.object({
  source: sourceName,
  json_path: jsonPathSchema,
  return_first_match: z.nullish(z.boolean()),
});

export const jsonPath: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, json_path, return_first_match }, context) {
    const matches = await jsonPathMatches(jsonOf(source, readSource(context, source)), json_path);
    return return_first_match === false ? matches : (matches[0] ?? null);
  },
};

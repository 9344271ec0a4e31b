import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { readSource, sourceName } from './values.ts';

/** COMBINE_COLUMNS: one object `{<source name>: <value>}` of every source, in the order given. */
const config = z.object({ sources: z.array(sourceName).check(z.minLength(1), z.maxLength(100)) });

export const combineColumns: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ sources }, context) {
    return Object.fromEntries(sources.map((name) => [name, readSource(context, name)]));
  },
};

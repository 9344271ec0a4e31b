import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { readSource, sourceName } from './values.ts';

/** COALESCE: the first of `sources` (at least 2) whose value is not null; null when all are. */
const config = z.object({ sources: z.array(sourceName).check(z.minLength(2), z.maxLength(100)) });

export const coalesce: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ sources }, context) {
    for (const name of sources) {
      const value = readSource(context, name);
      if (value !== null) return value;
    }
    return null;
  },
};

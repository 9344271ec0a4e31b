import * as z from 'zod';
import type { NodeExecutor } from './types.ts';
import { readSource, sourceName } from './values.ts';

/** COALESCE: the first of `sources` (at least 2) whose value is not null; null when all are. */
const config = z.object({ sources: z.array(sourceName).min(2).max(100) });

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

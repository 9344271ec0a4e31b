import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { numericSource, readSource, sourceName } from './values.ts';

/** ABSOLUTE_NUMERIC_DISTANCE: |first - second| of two numeric sources (numbers or numeric strings). */
const config = z.object({ sources: z.tuple([sourceName, sourceName]) });

export const absoluteNumericDistance: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ sources: [a, b] }, context) {
    return Math.abs(numericSource(a, readSource(context, a)) - numericSource(b, readSource(context, b)));
  },
};

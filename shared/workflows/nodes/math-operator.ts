import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { numericSource, readSource, sourceName } from './values.ts';

/**
 * MATH_OPERATOR: `first <operator> second`, a boolean, where second is the second source or, with
 * one source, `value`. Operators: lt, le, gt, ge. A value that is not a number (or a string holding
 * one) fails the node.
 */
const config = z
  .object({
    sources: z.array(sourceName).check(z.minLength(1), z.maxLength(2)),
    operator: z.enum(['lt', 'le', 'gt', 'ge']),
    value: z.nullish(z.number()),
  })
  .check(
    z.superRefine((c, ctx) => {
      if (c.sources.length === 1 && c.value == null) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'value is required with one source' });
      }
      if (c.sources.length === 2 && c.value != null) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'value is used only with one source' });
      }
    }),
  );

export const mathOperator: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ sources, operator, value }, context) {
    const [first, second] = sources as [string, string?];
    const x = numericSource(first, readSource(context, first));
    const y = second === undefined ? (value as number) : numericSource(second, readSource(context, second));
    switch (operator) {
      case 'lt':
        return x < y;
      case 'le':
        return x <= y;
      case 'gt':
        return x > y;
      case 'ge':
        return x >= y;
    }
  },
};

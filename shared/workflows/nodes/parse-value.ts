import { clip } from '#shared/platform/errors.ts';
import * as z from '#shared/platform/zod.ts';
import { type NodeExecutor, NodeFailure } from './types.ts';
import { numberOf, readSource, sourceName, textOf } from './values.ts';

/**
 * PARSE_VALUE: the source converted to `type`:
 * - `string`: strings as they are, null as "", anything else as its JSON text;
 * - `number`: a number, or a string holding one;
 * - `boolean`: a boolean, the numbers 1 and 0, or (any case, trimmed) "true"/"false", "yes"/"no", "1"/"0";
 * - `object`: a JSON object or array, or a string holding one.
 * Anything else fails the node, naming the source and the value.
 */
const config = z.object({
  source: sourceName,
  type: z.enum(['string', 'number', 'boolean', 'object']),
});

const BOOLEANS: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
};

export const parseValue: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, type }, context) {
    const value = readSource(context, source);
    const fail = () =>
      new NodeFailure(`cannot parse source "${source}" as ${type}: ${clip(textOf(value), 100)}`);
    switch (type) {
      case 'string':
        return textOf(value);
      case 'number': {
        const number = numberOf(value);
        if (number === undefined) throw fail();
        return number;
      }
      case 'boolean': {
        if (typeof value === 'boolean') return value;
        const key =
          typeof value === 'number'
            ? String(value)
            : typeof value === 'string'
              ? value.trim().toLowerCase()
              : '';
        if (!Object.hasOwn(BOOLEANS, key)) throw fail();
        return BOOLEANS[key];
      }
      case 'object': {
        const parsed = typeof value === 'string' ? tryParse(value) : value;
        if (typeof parsed !== 'object' || parsed === null) throw fail();
        return parsed;
      }
    }
  },
};

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

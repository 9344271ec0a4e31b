import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { readSource, sourceName, textOf } from './values.ts';

/**
 * COUNT: in the source's text (a non-string as its JSON text, null as ""):
 * - `chars`: characters (Unicode code points);
 * - `words`: runs of non-whitespace;
 * - `sentences`: pieces ended by `.`, `!`, `?` or `…` before whitespace, a blank line or the end of the
 *   text, that hold a letter or a digit ("3.5" ends nothing);
 * - `paragraphs`: non-blank blocks separated by blank lines.
 */
const config = z.object({
  source: sourceName,
  type: z.enum(['chars', 'words', 'sentences', 'paragraphs']),
});

export const count: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, type }, context) {
    const text = textOf(readSource(context, source));
    switch (type) {
      case 'chars':
        return [...text].length;
      case 'words':
        return text.split(/\s+/u).filter((word) => word !== '').length;
      case 'sentences':
        return text.split(/[.!?…]+(?=\s|$)|\n[^\S\n]*\n/u).filter((piece) => /[\p{L}\p{N}]/u.test(piece))
          .length;
      case 'paragraphs':
        return text.split(/\n[^\S\n]*\n/u).filter((block) => block.trim() !== '').length;
    }
  },
};

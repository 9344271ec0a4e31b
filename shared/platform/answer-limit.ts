import { answerTooLarge } from './errors.ts';
import { storedJsonBytes } from './json.ts';

/**
 * Keeping an HTTP answer within what Lambda returns (6 MB for the whole result, in which the body is a
 * JSON string, so escaped once more): answers that carry values of any size (a workflow's node
 * outputs, a report's cells) leave their largest values out, each marked with its size, until they fit.
 */

/** Bytes of `value`'s JSON (UTF-8); undefined counts as `null`. */
export const jsonBytes = (value: unknown): number => storedJsonBytes(value ?? null);

/**
 * Bytes `value`'s JSON takes inside a Lambda result, where the body is itself a JSON string: every `"`,
 * `\` and control character is escaped again.
 */
export const escapedJsonBytes = (value: unknown): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(value) ?? 'null'), 'utf8') - 2;

/**
 * Which values to leave out of an answer of `total` bytes so that it fits `limit`: indexes into
 * `costs` (what each value adds to the answer), the largest first (the earlier one on a tie), until the
 * answer fits; `replacement(i)` is what value i's stand-in adds instead. Empty when it fits already.
 */
export function largestToOmit(
  costs: readonly number[],
  total: number,
  limit: number,
  replacement: (index: number) => number,
): Set<number> {
  const omitted = new Set<number>();
  if (total <= limit) return omitted;
  const largestFirst = costs.map((cost, index) => ({ cost, index })).sort((a, b) => b.cost - a.cost);
  for (const { cost, index } of largestFirst) {
    if (total <= limit) break;
    omitted.add(index);
    total -= cost - replacement(index);
  }
  return omitted;
}

/** What an answer without pages may take: below Lambda's 6 MB, with room for its headers and envelope. */
export const MAX_UNPAGED_ANSWER_BYTES = 5 * 1024 * 1024;

/**
 * The answer of a list without pages, when Lambda can return it; else a 413 `answer_too_large` whose
 * message says how to narrow the list (`narrow`), rather than the 5xx Lambda would answer.
 */
export function withinAnswerLimit<T>(answer: T, narrow: string, limit = MAX_UNPAGED_ANSWER_BYTES): T {
  const bytes = escapedJsonBytes(answer);
  if (bytes > limit)
    throw answerTooLarge(`The answer would take ${bytes} bytes, more than the ${limit} it may: ${narrow}`);
  return answer;
}

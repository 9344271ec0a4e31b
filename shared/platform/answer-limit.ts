import { LAMBDA_PAYLOAD_LIMIT_BYTES } from './config.ts';
import { answerTooLarge } from './errors.ts';
import { storedJsonBytes } from './json.ts';

/**
 * The one answer-size budget. Lambda returns at most 6 MB for the whole result, in which the body is a
 * JSON string, so escaped once more: every answer is measured as that result carries it (`answerBytes`)
 * against ANSWER_BUDGET_BYTES. Answers that carry values of any size (a workflow's node outputs, a
 * report's cells, a skill's files, a trace's spans) leave out what does not fit and say so.
 */

/** What an answer's body may take, escaped as Lambda's result carries it: the rest is headers and envelope. */
export const ANSWER_BUDGET_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES - 1024 * 1024;

/**
 * The same budget for sizes known only as plain JSON (measured when the data was stored): escaping at
 * most doubles JSON text, so half of it.
 */
export const PLAIN_ANSWER_BUDGET_BYTES = ANSWER_BUDGET_BYTES / 2;

/** Bytes of `value`'s JSON (UTF-8); undefined counts as `null`. */
export const jsonBytes = (value: unknown): number => storedJsonBytes(value ?? null);

/**
 * Bytes `value`'s JSON takes inside a Lambda result, where the body is itself a JSON string: every `"`,
 * `\` and control character is escaped again. Escaping is per character, so the bytes of an answer are
 * the sum of its parts'.
 */
export const answerBytes = (value: unknown): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(value) ?? 'null'), 'utf8') - 2;

/** Whether `value` fits `limit` as an answer; most values are settled by their plain JSON's size. */
export const fitsAnswer = (value: unknown, limit = ANSWER_BUDGET_BYTES): boolean =>
  jsonBytes(value) * 2 <= limit || answerBytes(value) <= limit;

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

/**
 * For an `answer` holding `values` (each answered as `value`): which to answer as `value: null` with
 * `value_omitted_bytes` (its JSON's size) so that the answer fits `limit`, largest first. Maps each
 * omitted value's index to that size; empty when the answer fits already.
 */
export function valuesToOmit(
  answer: unknown,
  values: readonly unknown[],
  limit = ANSWER_BUDGET_BYTES,
): Map<number, number> {
  const sizes = values.map(jsonBytes);
  const omitted = largestToOmit(
    values.map(answerBytes),
    answerBytes(answer),
    limit,
    (i) => answerBytes(null) + answerBytes({ value_omitted_bytes: sizes[i] }),
  );
  return new Map([...omitted].map((i) => [i, sizes[i]!]));
}

/**
 * The answer of a list without pages, when Lambda can return it; else a 413 `answer_too_large` whose
 * message says how to narrow the list (`narrow`), rather than the 5xx Lambda would answer.
 */
export function withinAnswerLimit<T>(answer: T, narrow: string, limit = ANSWER_BUDGET_BYTES): T {
  const bytes = answerBytes(answer);
  if (bytes > limit)
    throw answerTooLarge(`The answer would take ${bytes} bytes, more than the ${limit} it may: ${narrow}`);
  return answer;
}

import * as z from '#shared/platform/zod.ts';
import type { RegexRun } from '#shared/sandbox/sandbox.ts';
import { type NodeContext, NodeFailure } from './types.ts';
import { readSource, sourceName, textOf } from './values.ts';

/**
 * What REGEX and REGEX_EXTRACTION share: user patterns are bounded in length (checked with the
 * configuration), in input size (a larger input fails the node; it is never cut) and in time (the match
 * runs in the sandbox, which kills a runaway match).
 *
 * Patterns are JavaScript regular expressions. For patterns written for Python's `re`, a leading
 * inline flag group such as `(?i)` or `(?ms)` becomes the matching flags, and `(?P<name>...)` named
 * groups are read as `(?<name>...)`.
 */
export const MAX_PATTERN_LENGTH = 1000;
export const MAX_REGEX_INPUT_BYTES = 100 * 1024;
export const REGEX_TIMEOUT_MS = 1000;

export interface CompiledPattern {
  pattern: string;
  flags: string;
}

/** The JavaScript pattern and flags of a user pattern, or a SyntaxError. */
export function compilePattern(userPattern: string): CompiledPattern {
  const leading = /^\(\?([imsx]+)\)/.exec(userPattern);
  const flags = [...new Set(leading?.[1] ?? '')].filter((flag) => flag !== 'x').join('');
  if (leading?.[1]?.includes('x')) throw new SyntaxError('the verbose flag (?x) is not supported');
  const pattern = userPattern.slice(leading?.[0].length ?? 0).replaceAll('(?P<', '(?<');
  new RegExp(pattern, flags);
  return { pattern, flags };
}

export const regexPatternSchema = z.string().check(
  z.minLength(1),
  z.maxLength(MAX_PATTERN_LENGTH),
  z.superRefine((pattern, ctx) => {
    try {
      compilePattern(pattern);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `not a valid regular expression: ${(error as Error).message}`,
      });
    }
  }),
);

export const regexConfig = z.object({ source: sourceName, regex_pattern: regexPatternSchema });
export type RegexConfig = z.infer<typeof regexConfig>;

/** Runs the pattern over the source's text in the sandbox: a boolean (`test`) or the matches (`match_all`). */
export async function runUserRegex(
  { source, regex_pattern }: RegexConfig,
  context: NodeContext,
  mode: RegexRun['mode'],
): Promise<unknown> {
  const input = textOf(readSource(context, source));
  const bytes = Buffer.byteLength(input);
  if (bytes > MAX_REGEX_INPUT_BYTES) {
    throw new NodeFailure(
      `source "${source}" is ${bytes} bytes; a regular expression runs on at most ${MAX_REGEX_INPUT_BYTES} bytes`,
    );
  }
  const timeoutMs = Math.min(REGEX_TIMEOUT_MS, context.deadline - Date.now());
  if (timeoutMs <= 0) throw new NodeFailure('the node ran out of time before its regular expression ran');
  const { pattern, flags } = compilePattern(regex_pattern);
  const result = await context.ports.sandbox.runRegex({
    workspaceId: context.workspaceId,
    pattern,
    flags,
    input,
    mode,
    timeoutMs,
  });
  if (result.ok) return result.value;
  if (result.reason === 'timeout') {
    throw new NodeFailure(`the regular expression did not finish within ${timeoutMs} ms`);
  }
  throw new NodeFailure(`the regular expression failed: ${result.error}`, result.error);
}

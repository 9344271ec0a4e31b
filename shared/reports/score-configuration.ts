import { badRequest } from '#shared/platform/errors.ts';
import type { ScoreConfiguration } from './records.ts';

/**
 * A score configuration as stored: JavaScript only (PYTHON cannot run here: a 400). POST /reports and
 * the score card both take one; a module of its own so the score card's function does not bundle the
 * column rules (every node executor).
 */
export function scoreConfigurationOf(
  input: { code: string; code_language: 'JAVASCRIPT' | 'PYTHON' } | null | undefined,
): ScoreConfiguration | null {
  if (!input) return null;
  if (input.code_language !== 'JAVASCRIPT') {
    throw badRequest(
      `score_configuration.code_language ${input.code_language} is not supported; use JAVASCRIPT`,
      'unsupported_code_language',
    );
  }
  return { code: input.code, code_language: 'JAVASCRIPT' };
}

import { type RegexConfig, regexConfig, runUserRegex } from './regex-run.ts';
import type { NodeExecutor } from './types.ts';

/** REGEX_EXTRACTION: every match of `regex_pattern` in the source's text, an array of strings. */
export const regexExtraction: NodeExecutor<RegexConfig> = {
  config: regexConfig,
  execute: (config, context) => runUserRegex(config, context, 'match_all'),
};

import { type RegexConfig, regexConfig, runUserRegex } from './regex-run.ts';
import type { NodeExecutor } from './types.ts';

/** REGEX: whether the source's text matches `regex_pattern` anywhere (bounds in regex-run.ts). */
export const regex: NodeExecutor<RegexConfig> = {
  config: regexConfig,
  execute: (config, context) => runUserRegex(config, context, 'test'),
};

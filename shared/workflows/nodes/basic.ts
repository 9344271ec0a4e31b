import { absoluteNumericDistance } from './absolute-numeric-distance.ts';
import { assertValid } from './assert-valid.ts';
import { coalesce } from './coalesce.ts';
import { combineColumns } from './combine-columns.ts';
import { compare } from './compare.ts';
import { contains } from './contains.ts';
import { count } from './count.ts';
import { jsonPath } from './json-path.ts';
import { mathOperator } from './math-operator.ts';
import { minMax } from './min-max.ts';
import { parseValue } from './parse-value.ts';
import { regex } from './regex.ts';
import { regexExtraction } from './regex-extraction.ts';
import type { NodeExecutor } from './types.ts';
import { variable } from './variable.ts';

/**
 * The node types that only compute from their sources (no provider, no network), by `node_type`. Each
 * reads its sources by name from `context.inputs`, so evaluation report columns run them unchanged.
 */
const erase = <C>(executor: NodeExecutor<C>) => executor as unknown as NodeExecutor<never>;

export const BASIC_EXECUTORS: Readonly<Record<string, NodeExecutor<never>>> = {
  VARIABLE: erase(variable),
  COMPARE: erase(compare),
  CONTAINS: erase(contains),
  REGEX: erase(regex),
  REGEX_EXTRACTION: erase(regexExtraction),
  JSON_PATH: erase(jsonPath),
  PARSE_VALUE: erase(parseValue),
  ASSERT_VALID: erase(assertValid),
  COALESCE: erase(coalesce),
  COMBINE_COLUMNS: erase(combineColumns),
  COUNT: erase(count),
  MATH_OPERATOR: erase(mathOperator),
  MIN_MAX: erase(minMax),
  ABSOLUTE_NUMERIC_DISTANCE: erase(absoluteNumericDistance),
};

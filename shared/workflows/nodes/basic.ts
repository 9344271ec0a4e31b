import type { NodeExecutor } from './types.ts';

/**
 * CONTRACT STUB (issue 9): the graph-and-executors part fills this with VARIABLE, COMPARE, CONTAINS,
 * REGEX, REGEX_EXTRACTION, JSON_PATH, PARSE_VALUE, ASSERT_VALID, COALESCE, COMBINE_COLUMNS, COUNT,
 * MATH_OPERATOR, MIN_MAX, ABSOLUTE_NUMERIC_DISTANCE (one file each under nodes/).
 */
export const BASIC_EXECUTORS: Readonly<Record<string, NodeExecutor<never>>> = {};

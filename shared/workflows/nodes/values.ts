import { isDeepStrictEqual } from 'node:util';
import type { JsonValue } from 'jsonpath-rfc9535';
import { clip } from '#shared/platform/errors.ts';
import { onDemand } from '#shared/platform/on-demand.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { type NodeContext, NodeFailure } from './types.ts';

/**
 * What executors and edge conditionals share: reading a named value, JSONPath queries, numbers from
 * JSON values, and the equality of two values. Nothing here knows about workflows: a name is a node
 * output or an input variable in a workflow, a column in an evaluation report.
 */

/** The schema of a `source` name in a configuration. */
export const sourceName = wellFormedString().check(z.minLength(1), z.maxLength(255));

/** The value named `name`, or a NodeFailure naming it when the context has no such value. */
export function readSource(context: Pick<NodeContext, 'inputs'>, name: string): unknown {
  if (!Object.hasOwn(context.inputs, name)) {
    throw new NodeFailure(`source "${name}" is not available: no input or earlier result has that name`);
  }
  return context.inputs[name] ?? null;
}

export const MAX_JSON_PATH_LENGTH = 1024;

/**
 * JSONPath (RFC 9535, evaluated without any code evaluation) is `jsonpath-rfc9535` (32 KB minified),
 * imported on the first path a container checks or evaluates: it is external to the bundles and copied
 * beside those that name it (ON_DEMAND_PACKAGES in infra/bundling.ts). Hence a configuration holding a
 * path is parsed with `safeParseAsync`.
 */
export const JSON_PATH_PACKAGE = 'jsonpath-rfc9535';

export interface JsonPathEngine {
  /** Every match of `path` (checked by jsonPathSchema) in a JSON value; throws on a path that does not parse. */
  matches(value: unknown, path: string): unknown[];
  /** Why `path` is not a JSONPath expression, or null when it is one. */
  problem(path: string): string | null;
}

export const jsonPathEngine: () => Promise<JsonPathEngine> = onDemand(async () => {
  const [{ query }, { default: parse }] = await Promise.all([
    import('jsonpath-rfc9535'),
    import('jsonpath-rfc9535/parser'),
  ]);
  return {
    matches: (value, path) => query((value ?? null) as JsonValue, path),
    problem(path) {
      try {
        parse(path);
        return null;
      } catch (error) {
        return `not a valid JSONPath expression (RFC 9535, e.g. "$.items[0].name"): ${(error as Error).message}`;
      }
    },
  };
});

/** A JSONPath (RFC 9535) expression that parses; a syntax error is a configuration error. */
export const jsonPathSchema = z.string().check(
  z.minLength(1),
  z.maxLength(MAX_JSON_PATH_LENGTH),
  z.superRefine(async (path, ctx) => {
    const problem = (await jsonPathEngine()).problem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

/** Every match of `path` (checked by jsonPathSchema) in a JSON value. */
export async function jsonPathMatches(value: unknown, path: string): Promise<unknown[]> {
  return (await jsonPathEngine()).matches(value, path);
}

/**
 * A string holding a JSON object or array (an LLM's answer, a response body) parsed, so that a path
 * reaches into it; any other value as it is.
 */
export function jsonIfText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!(text.startsWith('{') || text.startsWith('['))) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

/** A number, or a string that is one (after trimming; not empty); anything else is undefined. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value.trim());
  return Number.isFinite(number) ? number : undefined;
}

/**
 * Equality of two JSON values: numerically when both are numbers or numeric strings ("1.0" equals 1),
 * deep otherwise (object keys in any order, arrays in order, types strict: "true" is not true).
 */
export function valuesEqual(a: unknown, b: unknown): boolean {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== undefined && y !== undefined) return x === y;
  return isDeepStrictEqual(a ?? null, b ?? null);
}

/** A value as text: strings as they are, null as "", anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/**
 * A value read as JSON: a string is parsed (a NodeFailure naming the source when it is not JSON); any
 * other value is already JSON.
 */
export function jsonOf(name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    throw new NodeFailure(`source "${name}" is not valid JSON`);
  }
}

/** A number read from a source (a number or a string holding one), or a NodeFailure naming the source. */
export function numericSource(name: string, value: unknown): number {
  const number = numberOf(value);
  if (number === undefined) {
    throw new NodeFailure(`source "${name}" is not a number: ${clip(textOf(value), 100)}`);
  }
  return number;
}

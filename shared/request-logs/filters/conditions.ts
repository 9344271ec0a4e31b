import type { ErrorDetail } from '#shared/platform/errors.ts';
import { TIMESTAMP_FORMS } from '#shared/platform/time.ts';
import { FIELDS, type FieldDef, OPERATORS, STATUSES } from '#shared/request-logs/filters/fields.ts';
import { type Filter, MAX_LIST_ITEMS } from '#shared/request-logs/filters/schema.ts';
import { parseTimeSpan } from '#shared/request-logs/filters/time.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

export type Loc = (string | number)[];
export type Predicate = (record: RequestLogRecord) => boolean;

/** What one condition guarantees about every record it matches; times are inclusive epoch ms. */
export interface ConditionHint {
  startTimeFrom?: number;
  startTimeTo?: number;
  promptIds?: number[];
  statuses?: RequestLogRecord['status'][];
  tags?: string[];
}

export interface Condition {
  test: Predicate;
  cost: number;
  hint?: ConditionHint;
}

/** Collects every problem of a filter tree so one 422 lists them all. */
export class Issues {
  readonly list: ErrorDetail[] = [];

  add(loc: Loc, msg: string, type = 'value_error'): undefined {
    this.list.push({ loc, msg, type });
    return undefined;
  }
}

interface Ctx {
  field: string;
  op: string;
  value: unknown;
  loc: Loc;
  issues: Issues;
}

/** Turns an item of a filter value into what the predicate compares, or undefined when it has the wrong form. */
type Parse<T> = (value: unknown) => T | undefined;

const asString: Parse<string> = (v) => (typeof v === 'string' ? v : undefined);
const asNumber: Parse<number> = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** Nested values are compared in their string form: metadata values are strings, so 5 and "5" are equal. */
const asScalarText: Parse<string> = (v) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
const TIME_FORM = TIMESTAMP_FORMS;

function readOne<T>(c: Ctx, parse: Parse<T>, what: string): T | undefined {
  const parsed = parse(c.value);
  if (parsed === undefined) c.issues.add([...c.loc, 'value'], `'${c.op}' on '${c.field}' needs ${what}`);
  return parsed;
}

/** An item's form, said of one item and of several: "a string" / "strings". */
interface Form {
  one: string;
  many: string;
}

const STRING: Form = { one: 'a string', many: 'strings' };
const SCALAR: Form = { one: 'a string, number or boolean', many: 'strings, numbers or booleans' };

function readList<T>(c: Ctx, parse: Parse<T>, form: Form): T[] | undefined {
  if (!Array.isArray(c.value)) {
    return c.issues.add([...c.loc, 'value'], `'${c.op}' on '${c.field}' needs an array of ${form.many}`);
  }
  if (c.value.length > MAX_LIST_ITEMS) {
    return c.issues.add([...c.loc, 'value'], `at most ${MAX_LIST_ITEMS} items`, 'too_long');
  }
  const out: T[] = [];
  let ok = true;
  c.value.forEach((item: unknown, i) => {
    const parsed = parse(item);
    if (parsed === undefined) {
      c.issues.add([...c.loc, 'value', i], `expected ${form.one}`);
      ok = false;
    } else out.push(parsed);
  });
  return ok ? out : undefined;
}

/** `between` takes [low, high], both inclusive. */
function readRange<T>(c: Ctx, parse: Parse<T>, what: string): [T, T] | undefined {
  if (!Array.isArray(c.value) || c.value.length !== 2) {
    return c.issues.add(
      [...c.loc, 'value'],
      `'between' on '${c.field}' needs an array of 2 items [low, high]`,
    );
  }
  const low = parse(c.value[0]);
  const high = parse(c.value[1]);
  if (low === undefined) c.issues.add([...c.loc, 'value', 0], `expected ${what}`);
  if (high === undefined) c.issues.add([...c.loc, 'value', 1], `expected ${what}`);
  return low === undefined || high === undefined ? undefined : [low, high];
}

/** Compiles one filter, or records why it is invalid and returns undefined. */
export function compileCondition(filter: Filter, loc: Loc, issues: Issues): Condition | undefined {
  const { field, operator } = filter;
  const def = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
  if (def === undefined) {
    const known = Object.keys(FIELDS).join(', ');
    return issues.add([...loc, 'field'], `unknown field '${field}'; expected one of: ${known}`, 'enum');
  }
  const allowed = OPERATORS[def.kind];
  if (!allowed.includes(operator)) {
    const msg = `operator '${operator}' does not apply to ${def.kind} field '${field}'; expected one of: ${allowed.join(', ')}`;
    return issues.add([...loc, 'operator'], msg, 'enum');
  }
  const c: Ctx = { field, op: operator, value: filter.value, loc, issues };
  const compiled = compileKind(def, c, filter.nested_key);
  return compiled && { ...compiled, cost: def.cost };
}

type Compiled = { test: Predicate; hint?: ConditionHint } | undefined;

function compileKind(def: FieldDef, c: Ctx, nestedKey: string | null | undefined): Compiled {
  switch (def.kind) {
    case 'string':
      return compileString(def, c);
    case 'text':
      return compileText(def.getLower, c);
    case 'number':
      return compileNumber(def, c);
    case 'time':
      return compileTime(def, c);
    case 'boolean': {
      const get = def.get;
      return { test: c.op === 'is_true' ? get : (r) => !get(r) };
    }
    case 'array':
      return compileArray(def, c);
    case 'nested':
      return compileNested(def.get, c, nestedKey);
  }
}

/** Exact and case-sensitive, like the values the API returns (models, providers, statuses). */
function compileString(def: Extract<FieldDef, { kind: 'string' }>, c: Ctx): Compiled {
  const values = def.values;
  const parse: Parse<string> = values
    ? (v) => (typeof v === 'string' && values.includes(v) ? v : undefined)
    : asString;
  const form: Form = values
    ? { one: `one of ${values.join(', ')}`, many: `values among ${values.join(', ')}` }
    : STRING;
  let pass: (value: string) => boolean;
  if (c.op === 'is' || c.op === 'is_not') {
    const v = readOne(c, parse, form.one);
    if (v === undefined) return undefined;
    pass = c.op === 'is' ? (x) => x === v : (x) => x !== v;
  } else {
    const list = readList(c, parse, form);
    if (list === undefined) return undefined;
    const set = new Set(list);
    pass = c.op === 'in' ? (x) => set.has(x) : (x) => !set.has(x);
  }
  const get = def.get;
  // Status has a closed domain, so the statuses a match can have are simply those that pass.
  return {
    test: (r) => pass(get(r)),
    hint: def.hint === 'statuses' ? { statuses: STATUSES.filter(pass) } : {},
  };
}

/** Case-insensitive, like `q`: people search text the way they remember it. */
function compileText(getLower: (r: RequestLogRecord) => string, c: Ctx): Compiled {
  const v = readOne(c, asString, STRING.one)?.toLowerCase();
  if (v === undefined) return undefined;
  switch (c.op) {
    case 'contains':
      return { test: (r) => getLower(r).includes(v) };
    case 'not_contains':
      return { test: (r) => !getLower(r).includes(v) };
    case 'starts_with':
      return { test: (r) => getLower(r).startsWith(v) };
    default:
      return { test: (r) => getLower(r).endsWith(v) };
  }
}

/** A null (no prompt, no version) satisfies only is_null and the negation `neq`. */
function compileNumber(def: Extract<FieldDef, { kind: 'number' }>, c: Ctx): Compiled {
  const get = def.get;
  if (c.op === 'is_null') return { test: (r) => get(r) === null };
  if (c.op === 'is_not_null') return { test: (r) => get(r) !== null };
  if (c.op === 'between') {
    const range = readRange(c, asNumber, 'a number');
    if (range === undefined) return undefined;
    const [low, high] = range;
    if (low > high) return c.issues.add([...c.loc, 'value'], 'the low bound is above the high bound');
    return {
      test: (r) => {
        const x = get(r);
        return x !== null && x >= low && x <= high;
      },
    };
  }
  const v = readOne(c, asNumber, 'a number');
  if (v === undefined) return undefined;
  switch (c.op) {
    case 'eq':
      return { test: (r) => get(r) === v, hint: def.hint === 'promptIds' ? { promptIds: [v] } : {} };
    case 'neq':
      return { test: (r) => get(r) !== v };
    // A null becomes NaN, which fails every comparison (null itself would compare as 0).
    case 'gt':
      return { test: (r) => (get(r) ?? Number.NaN) > v };
    case 'gte':
      return { test: (r) => (get(r) ?? Number.NaN) >= v };
    case 'lt':
      return { test: (r) => (get(r) ?? Number.NaN) < v };
    default:
      return { test: (r) => (get(r) ?? Number.NaN) <= v };
  }
}

/** See TimeSpan: a value names a span, `before` is before its start, `after` after its end. */
function compileTime(def: Extract<FieldDef, { kind: 'time' }>, c: Ctx): Compiled {
  const get = def.get;
  const bounds = (from: number | undefined, to: number | undefined): ConditionHint => {
    if (def.hint !== 'startTime') return {};
    const hint: ConditionHint = {};
    if (from !== undefined) hint.startTimeFrom = from;
    if (to !== undefined) hint.startTimeTo = to;
    return hint;
  };
  if (c.op === 'between') {
    const range = readRange(c, parseTimeSpan, TIME_FORM);
    if (range === undefined) return undefined;
    const [low, high] = range;
    if (low.start > high.start)
      return c.issues.add([...c.loc, 'value'], 'the first time is after the second');
    const from = low.start;
    const end = high.end;
    return {
      test: (r) => {
        const t = get(r);
        return t >= from && t < end;
      },
      hint: bounds(from, end - 1),
    };
  }
  const span = readOne(c, parseTimeSpan, TIME_FORM);
  if (span === undefined) return undefined;
  const { start, end } = span;
  switch (c.op) {
    case 'is':
      return {
        test: (r) => {
          const t = get(r);
          return t >= start && t < end;
        },
        hint: bounds(start, end - 1),
      };
    case 'before':
      return { test: (r) => get(r) < start, hint: bounds(undefined, start - 1) };
    default:
      return { test: (r) => get(r) >= end, hint: bounds(end, undefined) };
  }
}

/** Elements are compared exactly; `in` means "has any of", `not_in` "has none of". */
function compileArray(def: Extract<FieldDef, { kind: 'array' }>, c: Ctx): Compiled {
  const get = def.get;
  switch (c.op) {
    case 'is_empty':
      return { test: (r) => get(r).length === 0 };
    case 'is_not_empty':
      return { test: (r) => get(r).length > 0 };
    case 'contains':
    case 'not_contains': {
      const v = readOne(c, asString, STRING.one);
      if (v === undefined) return undefined;
      if (c.op === 'not_contains') return { test: (r) => !get(r).includes(v) };
      return { test: (r) => get(r).includes(v), hint: def.hint === 'tags' ? { tags: [v] } : {} };
    }
    default: {
      const list = readList(c, asString, STRING);
      if (list === undefined) return undefined;
      const set = new Set(list);
      const any = (r: RequestLogRecord) => {
        for (const x of get(r)) if (set.has(x)) return true;
        return false;
      };
      if (c.op === 'not_in') return { test: (r) => !any(r) };
      const only = list.length === 1 ? list[0] : undefined;
      return { test: any, hint: def.hint === 'tags' && only !== undefined ? { tags: [only] } : {} };
    }
  }
}

const isContainer = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * `nested_key` is a dot path ("user.plan", "items.0.id"). A key that itself contains dots wins when it
 * exists as is, since metadata is flat and its keys may be dotted.
 */
function pathResolver(path: string): (root: unknown) => unknown {
  const segments = path.split('.');
  return (root) => {
    if (!isContainer(root)) return undefined;
    if (Object.hasOwn(root, path)) return root[path];
    let node: unknown = root;
    for (const segment of segments) {
      if (!isContainer(node) || !Object.hasOwn(node, segment)) return undefined;
      node = node[segment];
    }
    return node;
  };
}

const isEmptyValue = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);

/**
 * Scalars compare by string form (exact for key_equals and in, case-insensitive for key_contains); an array
 * value matches key_contains / in when one of its elements equals the value. A missing key equals nothing.
 */
function compileNested(
  getRoot: (r: RequestLogRecord) => unknown,
  c: Ctx,
  nestedKey: string | null | undefined,
): Compiled {
  if (typeof nestedKey !== 'string' || nestedKey === '') {
    return c.issues.add([...c.loc, 'nested_key'], `'${c.field}' needs nested_key (a dot path)`, 'missing');
  }
  const resolve = pathResolver(nestedKey);
  const at = (r: RequestLogRecord) => resolve(getRoot(r));
  switch (c.op) {
    case 'is_empty':
      return { test: (r) => isEmptyValue(at(r)) };
    case 'is_not_empty':
      return { test: (r) => !isEmptyValue(at(r)) };
    case 'key_equals':
    case 'key_not_equals': {
      const v = readOne(c, asScalarText, SCALAR.one);
      if (v === undefined) return undefined;
      const equals = (r: RequestLogRecord) => asScalarText(at(r)) === v;
      return { test: c.op === 'key_equals' ? equals : (r) => !equals(r) };
    }
    case 'key_contains': {
      const v = readOne(c, asScalarText, SCALAR.one);
      if (v === undefined) return undefined;
      const lower = v.toLowerCase();
      return {
        test: (r) => {
          const x = at(r);
          if (Array.isArray(x)) return x.some((item) => asScalarText(item) === v);
          return asScalarText(x)?.toLowerCase().includes(lower) ?? false;
        },
      };
    }
    default: {
      const list = readList(c, asScalarText, SCALAR);
      if (list === undefined) return undefined;
      const set = new Set(list);
      const has = (item: unknown) => {
        const text = asScalarText(item);
        return text !== undefined && set.has(text);
      };
      const any = (r: RequestLogRecord) => {
        const x = at(r);
        return Array.isArray(x) ? x.some(has) : has(x);
      };
      return { test: c.op === 'in' ? any : (r) => !any(r) };
    }
  }
}

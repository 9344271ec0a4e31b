/**
 * The one filter engine for request logs: `filter_group` + `q` of request search and of the
 * from-filter-params dataset job, compiled once into closures and run over records in memory.
 * Fields and what they read: filters/fields.ts. Value forms and semantics per kind: filters/conditions.ts.
 */
import { AppError, type ErrorDetail } from '#shared/platform/errors.ts';
import {
  type Condition,
  type ConditionHint,
  compileCondition,
  Issues,
  type Loc,
  type Predicate,
} from '#shared/request-logs/filters/conditions.ts';
import { STATUSES } from '#shared/request-logs/filters/fields.ts';
import { viewOf } from '#shared/request-logs/filters/record-view.ts';
import {
  type FilterGroup,
  isGroup,
  MAX_FILTERS,
  MAX_GROUP_DEPTH,
  tooDeepMessage,
} from '#shared/request-logs/filters/schema.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

export type { Filter, FilterGroup, FilterScalar } from '#shared/request-logs/filters/schema.ts';
export {
  FilterGroupSchema,
  MAX_FILTERS,
  MAX_GROUP_DEPTH,
  MAX_LIST_ITEMS,
} from '#shared/request-logs/filters/schema.ts';

/**
 * What the data layer may use to avoid a full scan, derived only from conditions every match must
 * satisfy (AND-paths from the root). Times are inclusive epoch ms bounds on request_start_time; `tags`
 * are tags every match carries (all of them); `promptIds`/`statuses` are the only values a match can
 * have, so an empty list means nothing can match. A key is absent when the filter does not constrain it.
 */
export interface ScanHints {
  startTimeFrom?: number;
  startTimeTo?: number;
  promptIds?: number[];
  statuses?: RequestLogRecord['status'][];
  tags?: string[];
}

export interface CompiledFilter {
  matches(record: RequestLogRecord): boolean;
  /** What the data layer may use to avoid a full scan: derived only from conditions that every match must satisfy (AND-paths from the root). */
  hints: ScanHints;
}

/** A compiled group or condition; `test: null` matches every record (an empty group). */
interface Node {
  test: Predicate | null;
  cost: number;
  /** Hints of the conditions on AND-paths inside this node. */
  andHints: ConditionHint[];
}

const Q_COST = 40;

/**
 * Compiles `filter_group` and `q` into one predicate. `loc` is where the group sits in the request
 * (e.g. ['body', 'filter_group']) so each 422 detail points at the offending filter; all problems are
 * reported together. `q` is a case-insensitive substring of the input text or of the output text.
 */
export function compileFilter(
  group: FilterGroup | null | undefined,
  q?: string | null,
  loc: Loc = ['filter_group'],
): CompiledFilter {
  const issues = new Issues();
  const budget = { filters: 0 };
  const nodes: Node[] = [];
  if (group) nodes.push(compileGroup(group, loc, 1, issues, budget));
  if (budget.filters > MAX_FILTERS) {
    issues.add(loc, `at most ${MAX_FILTERS} filters in all, got ${budget.filters}`, 'too_long');
  }
  if (issues.list.length > 0) throw validationError(issues.list);

  const needle = q?.trim().toLowerCase();
  if (needle) {
    const test: Predicate = (r) => {
      const view = viewOf(r);
      return view.inputLower.includes(needle) || view.outputLower.includes(needle);
    };
    nodes.push({ test, cost: Q_COST, andHints: [] });
  }
  const root = combine('AND', nodes);
  return { matches: root.test ?? (() => true), hints: mergeHints(root.andHints) };
}

function compileGroup(
  group: FilterGroup,
  loc: Loc,
  depth: number,
  issues: Issues,
  budget: { filters: number },
): Node {
  if (depth > MAX_GROUP_DEPTH) {
    issues.add(loc, tooDeepMessage, 'too_deep');
    return { test: null, cost: 0, andHints: [] };
  }
  const nodes: Node[] = [];
  group.filters.forEach((item, i) => {
    const itemLoc = [...loc, 'filters', i];
    if (isGroup(item)) {
      nodes.push(compileGroup(item, itemLoc, depth + 1, issues, budget));
      return;
    }
    budget.filters += 1;
    // Past the limit the request fails anyway: stop compiling (the count is still reported).
    if (budget.filters > MAX_FILTERS) return;
    const condition = compileCondition(item, itemLoc, issues);
    if (condition) nodes.push(fromCondition(condition));
  });
  return combine(group.logic ?? 'AND', nodes);
}

const fromCondition = (c: Condition): Node => ({
  test: c.test,
  cost: c.cost,
  andHints: c.hint ? [c.hint] : [],
});

/**
 * AND/OR of nodes, cheapest first (predicates are pure, so order changes only speed). An empty group
 * matches everything, so it vanishes from an AND and makes an OR match everything.
 */
function combine(logic: 'AND' | 'OR', nodes: Node[]): Node {
  const all = (): Node => ({ test: null, cost: 0, andHints: [] });
  const live: Node[] = [];
  for (const node of nodes) {
    if (node.test !== null) live.push(node);
    else if (logic === 'OR') return all();
  }
  if (live.length === 0) return all();
  if (live.length === 1) return live[0]!;
  live.sort((a, b) => a.cost - b.cost);
  const tests = live.map((n) => n.test!);
  const cost = live.reduce((sum, n) => sum + n.cost, 0);
  if (logic === 'OR') return { test: anyOf(tests), cost, andHints: [] };
  return { test: allOf(tests), cost, andHints: live.flatMap((n) => n.andHints) };
}

function allOf(tests: Predicate[]): Predicate {
  const [a, b, c] = tests;
  if (tests.length === 2) return (r) => a!(r) && b!(r);
  if (tests.length === 3) return (r) => a!(r) && b!(r) && c!(r);
  return (r) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(r)) return false;
    return true;
  };
}

function anyOf(tests: Predicate[]): Predicate {
  const [a, b, c] = tests;
  if (tests.length === 2) return (r) => a!(r) || b!(r);
  if (tests.length === 3) return (r) => a!(r) || b!(r) || c!(r);
  return (r) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(r)) return true;
    return false;
  };
}

function mergeHints(hints: ConditionHint[]): ScanHints {
  const out: ScanHints = {};
  let promptIds: Set<number> | undefined;
  let statuses: Set<RequestLogRecord['status']> | undefined;
  const tags = new Set<string>();
  for (const h of hints) {
    if (h.startTimeFrom !== undefined)
      out.startTimeFrom = Math.max(out.startTimeFrom ?? -Infinity, h.startTimeFrom);
    if (h.startTimeTo !== undefined) out.startTimeTo = Math.min(out.startTimeTo ?? Infinity, h.startTimeTo);
    if (h.promptIds) promptIds = intersect(promptIds, h.promptIds);
    if (h.statuses) statuses = intersect(statuses, h.statuses);
    for (const tag of h.tags ?? []) tags.add(tag);
  }
  if (promptIds) out.promptIds = [...promptIds];
  if (statuses) out.statuses = STATUSES.filter((s) => statuses.has(s));
  if (tags.size > 0) out.tags = [...tags];
  return out;
}

function intersect<T>(acc: Set<T> | undefined, values: T[]): Set<T> {
  return acc === undefined ? new Set(values) : new Set(values.filter((v) => acc.has(v)));
}

function validationError(detail: ErrorDetail[]): AppError {
  const [first] = detail;
  const more = detail.length > 1 ? ` (and ${detail.length - 1} more)` : '';
  return new AppError(
    422,
    'validation_error',
    `Invalid ${first!.loc.join('.')}: ${first!.msg}${more}`,
    detail,
  );
}

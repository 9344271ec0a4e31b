/**
 * The request-log query of the Requests and Analytics screens, as it lives in the URL: both screens read
 * and write the same parameters, so a filter set on one holds on the other.
 *
 * | param   | meaning                                                                           |
 * |---------|-----------------------------------------------------------------------------------|
 * | `range` | a preset of RANGES (default `24h`), ignored when `from` and `to` are both present  |
 * | `from`  | start of an absolute range, ISO 8601 (a zoomed chart sets it)                      |
 * | `to`    | end of an absolute range, ISO 8601                                                 |
 * | `q`     | free text: a substring of the input or output text                                 |
 * | `f`     | the conditions, as JSON: the API's `filter_group` without the time condition       |
 *
 * The field catalogue mirrors the API's filter table (shared/request-logs/filters/fields.ts); a unit test
 * keeps the two equal.
 */

export type FilterScalar = string | number | boolean | null;

export interface Filter {
  field: string;
  operator: string;
  value?: FilterScalar | FilterScalar[];
  nested_key?: string | null;
}

export interface FilterGroup {
  logic?: 'AND' | 'OR';
  filters: (Filter | FilterGroup)[];
}

export type FieldKind = 'string' | 'text' | 'number' | 'time' | 'boolean' | 'array' | 'nested';

export const OPERATORS: Record<FieldKind, readonly string[]> = {
  string: ['is', 'is_not', 'in', 'not_in'],
  text: ['contains', 'not_contains', 'starts_with', 'ends_with'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'is_null', 'is_not_null'],
  time: ['is', 'before', 'after', 'between'],
  boolean: ['is_true', 'is_false'],
  array: ['contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'],
  nested: ['key_equals', 'key_not_equals', 'key_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'],
};

/** Operators that take no value. */
export const VALUELESS = new Set([
  'is_null',
  'is_not_null',
  'is_true',
  'is_false',
  'is_empty',
  'is_not_empty',
]);
/** Operators whose value is a list (`between` is a pair). */
export const LIST_OPERATORS = new Set(['in', 'not_in', 'between']);

/** Every filterable field of a request log and its kind (the API's filter table). */
export const FIELDS: Record<string, FieldKind> = {
  pl_id: 'number',
  prompt_id: 'number',
  engine: 'string',
  provider_type: 'string',
  input_text: 'text',
  output_text: 'text',
  prompt_version_number: 'number',
  input_tokens: 'number',
  output_tokens: 'number',
  cost: 'number',
  latency_ms: 'number',
  request_start_time: 'time',
  request_end_time: 'time',
  status: 'string',
  is_json: 'boolean',
  is_tool_call: 'boolean',
  is_plain_text: 'boolean',
  tags: 'array',
  metadata_keys: 'array',
  metadata: 'nested',
  tool_names: 'array',
  output: 'nested',
  output_keys: 'array',
  input_variables: 'nested',
  input_variable_keys: 'array',
  group_id: 'number',
  replay_of: 'number',
};

export const RANGES = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };
export type RangePreset = keyof typeof RANGES;
export const RANGE_LABELS: Record<RangePreset, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};
export const DEFAULT_RANGE: RangePreset = '24h';

/** The query as the URL holds it. */
export interface LogQuery {
  range: RangePreset;
  from?: string;
  to?: string;
  q: string;
  filters: Filter[];
}

/** Reads the query from the URL's parameters; anything malformed reads as absent (a hand-edited URL never breaks the page). */
export function readLogQuery(params: URLSearchParams): LogQuery {
  const range = params.get('range');
  const query: LogQuery = {
    range: range !== null && range in RANGES ? (range as RangePreset) : DEFAULT_RANGE,
    q: params.get('q') ?? '',
    filters: parseFilters(params.get('f')),
  };
  const from = params.get('from');
  const to = params.get('to');
  if (from && to && !Number.isNaN(Date.parse(from)) && !Number.isNaN(Date.parse(to))) {
    query.from = from;
    query.to = to;
  }
  return query;
}

function parseFilters(text: string | null): Filter[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (item): item is Filter =>
        typeof item === 'object' &&
        item !== null &&
        typeof item.field === 'string' &&
        typeof item.operator === 'string',
    );
  } catch {
    return [];
  }
}

/** The URL parameters of a query: defaults are left out so URLs stay short. */
export function writeLogQuery(query: LogQuery): Record<string, string | undefined> {
  return {
    range: query.from && query.to ? undefined : query.range === DEFAULT_RANGE ? undefined : query.range,
    from: query.from,
    to: query.to,
    q: query.q || undefined,
    f: query.filters.length > 0 ? JSON.stringify(query.filters) : undefined,
  };
}

/**
 * "Now" for a preset range: the end of the current minute, so the window (and a request body built from
 * it) stays the same between renders within a minute, while still covering a log written a second ago.
 */
export const presetNow = (at = Date.now()): number => Math.ceil(at / 60_000) * 60_000;

/** The time window a query names, as ISO strings; a preset ends now (presetNow). */
export function timeWindow(query: LogQuery, now = presetNow()): { from: string; to: string } {
  if (query.from && query.to) return { from: query.from, to: query.to };
  return { from: new Date(now - RANGES[query.range]).toISOString(), to: new Date(now).toISOString() };
}

/** The API body's `filter_group` and `q` (search and analytics take both): the conditions AND the time window. */
export function toApiQuery(query: LogQuery, now = presetNow()): { filter_group: FilterGroup; q?: string } {
  const { from, to } = timeWindow(query, now);
  const filter_group: FilterGroup = {
    logic: 'AND',
    filters: [{ field: 'request_start_time', operator: 'between', value: [from, to] }, ...query.filters],
  };
  return query.q ? { filter_group, q: query.q } : { filter_group };
}

/** The query with one more condition (click-to-filter), replacing an identical one. */
export function addFilter(query: LogQuery, filter: Filter): LogQuery {
  const same = (f: Filter) => JSON.stringify(f) === JSON.stringify(filter);
  return { ...query, filters: [...query.filters.filter((f) => !same(f)), filter] };
}

/** A condition in words, for chips and summaries: `status is ERROR`, `metadata.user key_equals "u1"`. */
export function describeFilter(filter: Filter): string {
  const field = filter.nested_key ? `${filter.field}.${filter.nested_key}` : filter.field;
  if (VALUELESS.has(filter.operator)) return `${field} ${filter.operator.replaceAll('_', ' ')}`;
  const value = Array.isArray(filter.value) ? filter.value.map(String).join(', ') : String(filter.value);
  return `${field} ${filter.operator.replaceAll('_', ' ')} ${value}`;
}

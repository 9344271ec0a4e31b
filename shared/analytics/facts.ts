import type { RequestLogRecord } from '#shared/request-logs/record.ts';

/**
 * What one request log adds to the rollups: its bucket time, the dimension values it counts under and
 * the measures it adds. The change-feed consumer adds a log's facts and subtracts the facts of the image
 * it replaced, so a score or metadata update moves the log between dimension values.
 */

/** The dimensions a rollup breaks down by; metadata keys are `metadata.<key>`. */
export const FIXED_DIMENSIONS = [
  'model',
  'provider',
  'prompt',
  'prompt_id',
  'prompt_version',
  'status',
  'error_type',
  'tag',
] as const;
export type FixedDimension = (typeof FIXED_DIMENSIONS)[number];
export type Dimension = FixedDimension | `metadata.${string}`;
export const METADATA_PREFIX = 'metadata.';

export const isDimension = (name: string): name is Dimension =>
  (FIXED_DIMENSIONS as readonly string[]).includes(name) ||
  (name.startsWith(METADATA_PREFIX) && name.length > METADATA_PREFIX.length);

/**
 * A log counts under at most this many metadata keys (the first in key order) and this many tags; a
 * value longer than MAX_VALUE_LENGTH counts under its first MAX_VALUE_LENGTH characters. The per-item
 * caps (rollup-item.ts) bound what a bucket holds; these bound what one log can add.
 */
export const MAX_METADATA_KEYS_PER_LOG = 20;
export const MAX_TAGS_PER_LOG = 20;
export const MAX_VALUE_LENGTH = 200;

/** The measures a log adds, all integers so that adding and subtracting stays exact. */
export interface Measures {
  requests: number;
  success: number;
  warning: number;
  error: number;
  /** Cost in nano-USD (1e-9 $): sums of integers never drift, sums of floats do. */
  costNanos: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  latencyMs: number;
}

export interface LogFacts {
  startMs: number;
  measures: Measures;
  /** The log's latency in ms (for the sketch). */
  latencyMs: number;
  /** Dimension -> the values the log counts under (one, or several for tags). */
  values: Map<Dimension, string[]>;
}

export const NANOS_PER_USD = 1e9;

const clip = (value: string) => value.slice(0, MAX_VALUE_LENGTH);

/** The part of a record the rollups read (request-logs' `RequestLogHead`: no payloads). */
export type RolledUpRecord = Pick<
  RequestLogRecord,
  | 'provider'
  | 'model'
  | 'tags'
  | 'metadata'
  | 'prompt_id'
  | 'prompt_name'
  | 'prompt_version_number'
  | 'input_tokens'
  | 'output_tokens'
  | 'price'
  | 'usage'
  | 'status'
  | 'error_type'
  | 'request_start_time'
  | 'request_end_time'
>;

export function logFacts(record: RolledUpRecord): LogFacts {
  const usage = record.usage ?? {
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
  const latencyMs = Math.max(0, Math.round(record.request_end_time - record.request_start_time));
  const measures: Measures = {
    requests: 1,
    success: record.status === 'SUCCESS' ? 1 : 0,
    warning: record.status === 'WARNING' ? 1 : 0,
    error: record.status === 'ERROR' ? 1 : 0,
    costNanos: Math.round((Number(record.price) || 0) * NANOS_PER_USD),
    inputTokens: usage.input_tokens || 0,
    outputTokens: usage.output_tokens || 0,
    cacheReadTokens: usage.cache_read_tokens || 0,
    cacheWriteTokens: usage.cache_write_tokens || 0,
    reasoningTokens: usage.reasoning_tokens || 0,
    latencyMs,
  };
  const values = new Map<Dimension, string[]>();
  const set = (dimension: Dimension, value: string | null | undefined) => {
    if (value != null && value !== '') values.set(dimension, [clip(value)]);
  };
  set('model', record.model);
  set('provider', record.provider);
  const promptName = record.prompt_name ?? (record.prompt_id != null ? String(record.prompt_id) : null);
  set('prompt', promptName);
  if (record.prompt_id != null) set('prompt_id', String(record.prompt_id));
  if (promptName != null && record.prompt_version_number != null) {
    set('prompt_version', `${promptName}@${record.prompt_version_number}`);
  }
  set('status', record.status);
  set('error_type', record.error_type);
  const tags = [...new Set((record.tags ?? []).map(clip))].slice(0, MAX_TAGS_PER_LOG);
  if (tags.length > 0) values.set('tag', tags);
  const keys = Object.keys(record.metadata ?? {})
    .sort()
    .slice(0, MAX_METADATA_KEYS_PER_LOG);
  for (const key of keys) set(`metadata.${clip(key)}`, String(record.metadata[key]));
  return { startMs: record.request_start_time, measures, latencyMs, values };
}

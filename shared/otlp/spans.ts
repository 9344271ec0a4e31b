import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';
import { MAX_EPOCH_NS, parseNanos } from '#shared/traces/span-time.ts';
import { notOtlp } from './decode.ts';

/**
 * The spans of an OTLP/JSON-shaped request (decode.ts), each checked on its own: a span that cannot be
 * stored is refused with a reason (counted in the answer's `partialSuccess`), the others go on. The
 * request's structure itself (arrays where arrays belong) is a 400.
 */

/** A span as the rest of the ingest reads it: attributes as plain values, times as nanoseconds. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  traceState: string;
  name: string;
  /** OTLP's SpanKind number: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: JsonObject;
  events: { name: string; time_unix_nano: string; attributes: JsonObject }[];
  links: { trace_id: string; span_id: string; trace_state: string; attributes: JsonObject }[];
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: JsonObject;
  scope: { name: string; version: string };
}

export interface RejectedSpan {
  traceId?: string;
  spanId?: string;
  reason: string;
}

/** The longest a span's attributes, events and links may be, as JSON. Larger spans are refused. */
export const MAX_SPAN_BYTES = 4 * 1024 * 1024;
/** A span may start at most this far in the future (clock skew between the exporter and us). */
export const MAX_CLOCK_SKEW_NS = 24n * 3600n * 1_000_000_000n;
/** How deeply attribute values (arrays, key-value lists) may nest. */
const MAX_VALUE_DEPTH = 32;
/** The longest trace state kept (as /spans-bulk's `trace_state`): it is part of the span's small summary. */
const MAX_TRACE_STATE = 1024;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;

const KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

export function readSpans(
  request: JsonObject,
  nowNs: bigint,
): { spans: OtlpSpan[]; rejected: RejectedSpan[]; storedBytes: number } {
  const spans: OtlpSpan[] = [];
  const rejected: RejectedSpan[] = [];
  /** What the accepted spans' details add up to, the resource and scope repeated in each. */
  let storedBytes = 0;
  for (const [r, resourceSpans] of list(request.resourceSpans, 'resourceSpans').entries()) {
    const where = `resourceSpans[${r}]`;
    const resourceObject = field(resourceSpans, where, 'resource');
    let resource: JsonObject = {};
    // A resource nested too deeply refuses its spans, as a span's own attributes would.
    let resourceProblem: string | undefined;
    try {
      if (resourceObject !== undefined) resource = attributesOf(resourceObject, `${where}.resource`);
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
      resourceProblem = `its resource: ${error.message}`;
    }
    for (const [s, scopeSpans] of list(
      field(resourceSpans, where, 'scopeSpans'),
      `${where}.scopeSpans`,
    ).entries()) {
      const scopeWhere = `${where}.scopeSpans[${s}]`;
      const scopeObject = field(scopeSpans, scopeWhere, 'scope');
      const scope = {
        name: isJsonObject(scopeObject) && typeof scopeObject.name === 'string' ? scopeObject.name : '',
        version:
          isJsonObject(scopeObject) && typeof scopeObject.version === 'string' ? scopeObject.version : '',
      };
      // The resource and scope are stored with each of their spans: they count in each span's size.
      const shared = {
        resource,
        scope,
        bytes: Buffer.byteLength(JSON.stringify([resource, scope]), 'utf8'),
        problem: resourceProblem,
      };
      for (const [i, raw] of list(field(scopeSpans, scopeWhere, 'spans'), `${scopeWhere}.spans`).entries()) {
        const result = readSpan(raw, `${scopeWhere}.spans[${i}]`, shared, nowNs);
        if ('reason' in result) rejected.push(result);
        else {
          spans.push(result.span);
          storedBytes += result.bytes;
        }
      }
    }
  }
  return { spans, rejected, storedBytes };
}

function readSpan(
  raw: unknown,
  where: string,
  shared: { resource: JsonObject; scope: OtlpSpan['scope']; bytes: number; problem: string | undefined },
  nowNs: bigint,
): { span: OtlpSpan; bytes: number } | RejectedSpan {
  const { resource, scope } = shared;
  if (!isJsonObject(raw)) throw notOtlp(`${where} is not an object`);
  const traceId = hex(field(raw, where, 'traceId'));
  const spanId = hex(field(raw, where, 'spanId'));
  const ids = { traceId, spanId };
  if (!TRACE_ID.test(traceId) || ZERO.test(traceId))
    return {
      ...ids,
      reason: `invalid traceId "${traceId.slice(0, 64)}": 16 bytes (32 hex digits), not all zero`,
    };
  if (!SPAN_ID.test(spanId) || ZERO.test(spanId))
    return {
      ...ids,
      reason: `invalid spanId "${spanId.slice(0, 64)}": 8 bytes (16 hex digits), not all zero`,
    };
  if (shared.problem !== undefined) return { ...ids, reason: shared.problem };
  const parent = hex(field(raw, where, 'parentSpanId'));
  if (parent !== '' && !SPAN_ID.test(parent))
    return { ...ids, reason: `invalid parentSpanId "${parent.slice(0, 64)}": 8 bytes (16 hex digits)` };
  const startNs = parseNanos(field(raw, where, 'startTimeUnixNano') ?? '0');
  const endNs = parseNanos(field(raw, where, 'endTimeUnixNano') ?? '0');
  if (startNs === undefined || startNs === 0n) return { ...ids, reason: 'startTimeUnixNano is missing or 0' };
  if (endNs === undefined || endNs < startNs)
    return { ...ids, reason: 'endTimeUnixNano is missing or before the start' };
  if (startNs > nowNs + MAX_CLOCK_SKEW_NS || endNs > MAX_EPOCH_NS)
    return { ...ids, reason: 'the span starts more than a day in the future' };
  const name = field(raw, where, 'name');
  if (typeof name !== 'string' || name.length > 1024)
    return { ...ids, reason: 'the span name is missing or longer than 1024 characters' };
  const traceState = String(field(raw, where, 'traceState') ?? '');
  if (traceState.length > MAX_TRACE_STATE)
    return { ...ids, reason: `the trace state is longer than ${MAX_TRACE_STATE} characters` };
  let attributes: JsonObject;
  let events: OtlpSpan['events'];
  let links: OtlpSpan['links'];
  try {
    attributes = attributesOf(raw, where);
    events = list(field(raw, where, 'events') ?? [], `${where}.events`).map((event, e) => ({
      name: String(field(event, `${where}.events[${e}]`, 'name') ?? ''),
      time_unix_nano: String(parseNanos(field(event, `${where}.events[${e}]`, 'timeUnixNano') ?? '0') ?? 0n),
      attributes: attributesOf(event, `${where}.events[${e}]`),
    }));
    links = list(field(raw, where, 'links') ?? [], `${where}.links`).map((link, l) => ({
      trace_id: hex(field(link, `${where}.links[${l}]`, 'traceId')),
      span_id: hex(field(link, `${where}.links[${l}]`, 'spanId')),
      trace_state: String(field(link, `${where}.links[${l}]`, 'traceState') ?? ''),
      attributes: attributesOf(link, `${where}.links[${l}]`),
    }));
  } catch (error) {
    if (error instanceof TooDeep) return { ...ids, reason: error.message };
    throw error;
  }
  const bytes = Buffer.byteLength(JSON.stringify([attributes, events, links]), 'utf8') + shared.bytes;
  if (bytes > MAX_SPAN_BYTES)
    return {
      ...ids,
      reason: `the span's attributes, events, links, resource and scope are ${bytes} bytes, over the ${MAX_SPAN_BYTES} a span may have`,
    };
  const status = field(raw, where, 'status');
  const statusCode = isJsonObject(status) ? status.code : undefined;
  const kind = field(raw, where, 'kind');
  const span: OtlpSpan = {
    traceId,
    spanId,
    parentSpanId: parent === '' || ZERO.test(parent) ? null : parent,
    traceState,
    name,
    kind: typeof kind === 'string' ? (KINDS[kind] ?? 0) : Number(kind ?? 0) || 0,
    startNs,
    endNs,
    attributes,
    events,
    links,
    status: {
      code: typeof statusCode === 'string' ? (STATUS_CODES[statusCode] ?? 0) : Number(statusCode ?? 0) || 0,
      message:
        isJsonObject(status) && typeof status.message === 'string' ? status.message.slice(0, 16_384) : '',
    },
    resource,
    scope,
  };
  return { span, bytes };
}

class TooDeep extends Error {}

/** OTLP/JSON names fields in lowerCamelCase; the proto's snake_case names are accepted too. */
function field(object: unknown, where: string, name: string): unknown {
  if (!isJsonObject(object)) throw notOtlp(`${where} is not an object`);
  if (object[name] !== undefined) return object[name];
  return object[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw notOtlp(`${where} is not an array`);
  return value;
}

const hex = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '');

/** `attributes: [{key, value: AnyValue}]` as a plain object (a repeated key: the last one wins). */
function attributesOf(object: unknown, where: string, depth = 0): JsonObject {
  const result: JsonObject = Object.create(null);
  for (const [i, pair] of list(field(object, where, 'attributes'), `${where}.attributes`).entries()) {
    if (!isJsonObject(pair) || typeof pair.key !== 'string')
      throw notOtlp(`${where}.attributes[${i}] has no key`);
    result[pair.key] = anyValue(pair.value, depth);
  }
  return { ...result };
}

/** An AnyValue as a plain value: 64-bit integers as numbers when exact, else decimal strings. */
function anyValue(value: unknown, depth: number): unknown {
  if (!isJsonObject(value)) return null;
  if (depth > MAX_VALUE_DEPTH)
    throw new TooDeep(`an attribute value nests deeper than ${MAX_VALUE_DEPTH} levels`);
  if ('stringValue' in value || 'string_value' in value)
    return String(value.stringValue ?? value.string_value);
  if ('boolValue' in value || 'bool_value' in value) return Boolean(value.boolValue ?? value.bool_value);
  if ('intValue' in value || 'int_value' in value) {
    const int = Number(value.intValue ?? value.int_value);
    return Number.isSafeInteger(int) ? int : String(value.intValue ?? value.int_value);
  }
  if ('doubleValue' in value || 'double_value' in value)
    return Number(value.doubleValue ?? value.double_value);
  const array = value.arrayValue ?? value.array_value;
  if (isJsonObject(array))
    return list(array.values, 'arrayValue.values').map((item) => anyValue(item, depth + 1));
  const kvlist = value.kvlistValue ?? value.kvlist_value;
  if (isJsonObject(kvlist)) {
    return Object.fromEntries(
      list(kvlist.values, 'kvlistValue.values').map((pair) => [
        isJsonObject(pair) ? String(pair.key) : '',
        anyValue(isJsonObject(pair) ? pair.value : null, depth + 1),
      ]),
    );
  }
  const bytes = value.bytesValue ?? value.bytes_value;
  if (typeof bytes === 'string') return bytes;
  return null;
}

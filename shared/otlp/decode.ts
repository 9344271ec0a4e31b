import { gunzipSync } from 'node:zlib';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '#shared/platform/errors.ts';
import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';
import { decodeMessage, encodeExportResponse } from './wire.ts';

/**
 * An OTLP/HTTP trace export (`ExportTraceServiceRequest`) as bytes, protobuf or JSON, maybe gzipped,
 * turned into one JSON shape (OTLP/JSON's: lowerCamelCase fields, hex ids, 64-bit integers as decimal
 * strings) that `spans.ts` reads. Anything that is not such a request is a 400 before any write.
 */

export type OtlpEncoding = 'protobuf' | 'json';

/** What a client may send after Content-Encoding: gzip, decompressed (a gzip bomb stops here). */
export const MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

const EXPORT_REQUEST = 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest';

/** The encoding a Content-Type names; 415 for any other. */
export function encodingOf(contentType: string | undefined): OtlpEncoding {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw unsupportedMediaType(
    'OTLP/HTTP takes Content-Type application/x-protobuf or application/json (gRPC is not served)',
  );
}

/** The body's bytes after its Content-Encoding (identity or gzip; 415 for any other). */
export function decompress(bytes: Buffer, contentEncoding: string | undefined): Buffer {
  const coding = contentEncoding?.trim().toLowerCase() ?? '';
  if (coding === '' || coding === 'identity') return bytes;
  if (coding !== 'gzip') throw unsupportedMediaType(`Content-Encoding ${coding} is not supported: use gzip`);
  // API Gateway may have decompressed the body already (it keeps the header): no gzip magic, no gzip.
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw payloadTooLarge(
        `The decompressed body exceeds ${MAX_DECOMPRESSED_BYTES} bytes: send smaller batches (the exporter's maxExportBatchSize)`,
      );
    }
    throw badRequest('The body is not valid gzip', 'invalid_body');
  }
}

/** The request as OTLP/JSON: `{resourceSpans: [...]}`. */
export function decodeRequest(bytes: Buffer, encoding: OtlpEncoding): JsonObject {
  return encoding === 'protobuf' ? decodeProtobuf(bytes) : decodeJson(bytes);
}

function decodeProtobuf(bytes: Buffer): JsonObject {
  let object: JsonObject;
  try {
    object = decodeMessage(EXPORT_REQUEST, bytes);
  } catch {
    // Truncated, garbage, or nested too deeply: the same answer.
    throw badRequest('The body is not a protobuf ExportTraceServiceRequest', 'invalid_protobuf');
  }
  for (const resourceSpans of asArray(object.resourceSpans)) {
    for (const scopeSpans of asArray((resourceSpans as JsonObject).scopeSpans)) {
      for (const span of asArray((scopeSpans as JsonObject).spans)) hexIds(span as JsonObject);
    }
  }
  return object;
}

/** Protobuf carries ids as bytes (base64 here); OTLP/JSON as hex, which is what the rest reads. */
function hexIds(span: JsonObject): void {
  for (const name of ['traceId', 'spanId', 'parentSpanId'])
    if (typeof span[name] === 'string') span[name] = Buffer.from(span[name], 'base64').toString('hex');
  for (const link of asArray(span.links)) {
    const value = link as JsonObject;
    for (const name of ['traceId', 'spanId'])
      if (typeof value[name] === 'string') value[name] = Buffer.from(value[name], 'base64').toString('hex');
  }
}

const REQUEST_FIELDS = new Set(['resourceSpans', 'resource_spans']);

function decodeJson(bytes: Buffer): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badRequest('The body is not valid JSON', 'invalid_json');
  }
  if (!isJsonObject(parsed)) throw notOtlp('the body is not a JSON object');
  const unknown = Object.keys(parsed).find((name) => !REQUEST_FIELDS.has(name));
  if (unknown !== undefined) throw notOtlp(`unknown field "${unknown.slice(0, 64)}"`);
  const resourceSpans = parsed.resourceSpans ?? parsed.resource_spans ?? [];
  if (!Array.isArray(resourceSpans)) throw notOtlp('resourceSpans is not an array');
  return { resourceSpans };
}

export const notOtlp = (why: string) =>
  badRequest(`The body is not an OTLP ExportTraceServiceRequest: ${why}`, 'invalid_otlp');

/** The answer, in the request's encoding: `partialSuccess` only when something was refused or warned. */
export function encodeResponse(
  encoding: OtlpEncoding,
  partial: { rejectedSpans: number; errorMessage: string } | undefined,
): Buffer | JsonObject {
  // PromptLayer answers JSON with `partialSuccess: null` when nothing was refused, a number of spans otherwise.
  if (encoding === 'json') return { partialSuccess: partial ?? null };
  return encodeExportResponse(partial);
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

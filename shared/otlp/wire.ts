import protobuf from 'protobufjs/minimal.js';
import type { JsonObject } from '#shared/platform/json.ts';
import { OTLP_DESCRIPTOR } from './descriptor.ts';

/**
 * Protobuf decoding of the OTLP messages with protobufjs's minimal build (its Reader and Writer, a
 * quarter of the reflection build's size), driven by the JSON descriptor: each message's fields by
 * number, read into OTLP/JSON's shape (lowerCamelCase names, 64-bit integers as decimal strings, bytes as
 * base64). Unknown fields are skipped, as protobuf requires; a wire type that does not match its field,
 * a length past the end, or nesting past MAX_DEPTH is malformed input and throws.
 */

interface FieldType {
  name: string;
  type: string;
  repeated: boolean;
}

const SCALAR_WIRE_TYPES: Record<string, number> = {
  string: 2,
  bytes: 2,
  bool: 0,
  int32: 0,
  uint32: 0,
  int64: 0,
  double: 1,
  fixed64: 1,
  fixed32: 5,
};

/** Nesting the decoder follows (attribute values nest arrays and key-value lists). */
const MAX_DEPTH = 64;

interface Namespace {
  nested?: Record<string, Namespace>;
  fields?: Record<string, { type: string; id: number; rule?: string }>;
}

/** Every message of the descriptor by full name, its field types resolved to full names too. */
const messages = new Map<string, Map<number, FieldType>>();
collect(OTLP_DESCRIPTOR as Namespace, '');

function collect(namespace: Namespace, prefix: string): void {
  for (const [name, child] of Object.entries(namespace.nested ?? {})) {
    const full = prefix ? `${prefix}.${name}` : name;
    if (child.fields) {
      const fields = new Map<number, FieldType>();
      for (const [fieldName, field] of Object.entries(child.fields))
        fields.set(field.id, { name: fieldName, type: field.type, repeated: field.rule === 'repeated' });
      messages.set(full, fields);
    }
    collect(child, full);
  }
}

/** A field's message type by full name: relative names resolve from the message outwards. */
function resolve(type: string, scope: string): string | undefined {
  if (type in SCALAR_WIRE_TYPES) return undefined;
  if (messages.has(type)) return type;
  const parts = scope.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), type].join('.');
    if (messages.has(candidate)) return candidate;
  }
  throw new Error(`The OTLP descriptor names an unknown type ${type}`);
}

export function decodeMessage(typeName: string, bytes: Uint8Array): JsonObject {
  const reader = protobuf.Reader.create(bytes);
  return read(reader, typeName, reader.len, 0);
}

function read(reader: protobuf.Reader, typeName: string, end: number, depth: number): JsonObject {
  if (depth > MAX_DEPTH) throw new Error('nested too deeply');
  const fields = messages.get(typeName)!;
  const object: JsonObject = {};
  while (reader.pos < end) {
    const tag = reader.uint32();
    const wire = tag & 7;
    const field = fields.get(tag >>> 3);
    if (!field) {
      reader.skipType(wire);
      continue;
    }
    const nested = resolve(field.type, typeName);
    const expected = nested ? 2 : SCALAR_WIRE_TYPES[field.type];
    if (wire !== expected) throw new Error(`wire type ${wire} for ${typeName}.${field.name}`);
    let value: unknown;
    if (nested) {
      const length = reader.uint32();
      if (reader.pos + length > end) throw new Error('length past the end');
      value = read(reader, nested, reader.pos + length, depth + 1);
    } else value = scalar(reader, field.type);
    if (!field.repeated) object[field.name] = value;
    else if (Array.isArray(object[field.name])) (object[field.name] as unknown[]).push(value);
    else object[field.name] = [value];
  }
  if (reader.pos !== end) throw new Error('a message overruns its length');
  return object;
}

function scalar(reader: protobuf.Reader, type: string): unknown {
  switch (type) {
    case 'string':
      return reader.string();
    case 'bytes':
      return Buffer.from(reader.bytes()).toString('base64');
    case 'bool':
      return reader.bool();
    case 'int32':
      return reader.int32();
    case 'uint32':
      return reader.uint32();
    case 'fixed32':
      return reader.fixed32();
    case 'double':
      return reader.double();
    case 'int64':
      return String(reader.int64());
    default:
      return String(reader.fixed64());
  }
}

/** `ExportTraceServiceResponse`: field 1 `partialSuccess` {1: rejectedSpans int64, 2: errorMessage}. */
export function encodeExportResponse(
  partial: { rejectedSpans: number; errorMessage: string } | undefined,
): Buffer {
  const writer = protobuf.Writer.create();
  if (partial) {
    writer.uint32((1 << 3) | 2).fork();
    writer.uint32((1 << 3) | 0).int64(partial.rejectedSpans);
    if (partial.errorMessage !== '') writer.uint32((2 << 3) | 2).string(partial.errorMessage);
    writer.ldelim();
  }
  return Buffer.from(writer.finish());
}

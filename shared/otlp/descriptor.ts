import type { INamespace } from 'protobufjs';

/**
 * The OTLP trace messages (opentelemetry-proto v1.11.0: `common/v1/common.proto`,
 * `resource/v1/resource.proto`, `trace/v1/trace.proto`, `collector/trace/v1/trace_service.proto`) as a
 * protobufjs JSON descriptor, written from the published message definitions: only the messages a trace
 * export carries, with their field numbers and wire types. Fields added later (or unknown to us) are
 * skipped by the decoder, as protobuf requires, so newer exporters still decode.
 */
const common = {
  AnyValue: {
    oneofs: {
      value: {
        oneof: [
          'stringValue',
          'boolValue',
          'intValue',
          'doubleValue',
          'arrayValue',
          'kvlistValue',
          'bytesValue',
        ],
      },
    },
    fields: {
      stringValue: { type: 'string', id: 1 },
      boolValue: { type: 'bool', id: 2 },
      intValue: { type: 'int64', id: 3 },
      doubleValue: { type: 'double', id: 4 },
      arrayValue: { type: 'ArrayValue', id: 5 },
      kvlistValue: { type: 'KeyValueList', id: 6 },
      bytesValue: { type: 'bytes', id: 7 },
    },
  },
  ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
  KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
  KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
  InstrumentationScope: {
    fields: {
      name: { type: 'string', id: 1 },
      version: { type: 'string', id: 2 },
      attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
      droppedAttributesCount: { type: 'uint32', id: 4 },
    },
  },
};

const resource = {
  Resource: {
    fields: {
      attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 1 },
      droppedAttributesCount: { type: 'uint32', id: 2 },
    },
  },
};

const KEY_VALUE = 'opentelemetry.proto.common.v1.KeyValue';

const trace = {
  ResourceSpans: {
    fields: {
      resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
      scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  ScopeSpans: {
    fields: {
      scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
      spans: { rule: 'repeated', type: 'Span', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  Span: {
    fields: {
      traceId: { type: 'bytes', id: 1 },
      spanId: { type: 'bytes', id: 2 },
      traceState: { type: 'string', id: 3 },
      parentSpanId: { type: 'bytes', id: 4 },
      flags: { type: 'fixed32', id: 16 },
      name: { type: 'string', id: 5 },
      kind: { type: 'int32', id: 6 },
      startTimeUnixNano: { type: 'fixed64', id: 7 },
      endTimeUnixNano: { type: 'fixed64', id: 8 },
      attributes: { rule: 'repeated', type: KEY_VALUE, id: 9 },
      droppedAttributesCount: { type: 'uint32', id: 10 },
      events: { rule: 'repeated', type: 'Event', id: 11 },
      droppedEventsCount: { type: 'uint32', id: 12 },
      links: { rule: 'repeated', type: 'Link', id: 13 },
      droppedLinksCount: { type: 'uint32', id: 14 },
      status: { type: 'Status', id: 15 },
    },
    nested: {
      Event: {
        fields: {
          timeUnixNano: { type: 'fixed64', id: 1 },
          name: { type: 'string', id: 2 },
          attributes: { rule: 'repeated', type: KEY_VALUE, id: 3 },
          droppedAttributesCount: { type: 'uint32', id: 4 },
        },
      },
      Link: {
        fields: {
          traceId: { type: 'bytes', id: 1 },
          spanId: { type: 'bytes', id: 2 },
          traceState: { type: 'string', id: 3 },
          attributes: { rule: 'repeated', type: KEY_VALUE, id: 4 },
          droppedAttributesCount: { type: 'uint32', id: 5 },
          flags: { type: 'fixed32', id: 6 },
        },
      },
    },
  },
  // `code` is an enum on the wire (a varint); kept as its number, as OTLP/JSON sends it.
  Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
};

const collector = {
  ExportTraceServiceRequest: {
    fields: {
      resourceSpans: {
        rule: 'repeated',
        type: 'opentelemetry.proto.trace.v1.ResourceSpans',
        id: 1,
      },
    },
  },
  ExportTraceServiceResponse: {
    fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } },
  },
  ExportTracePartialSuccess: {
    fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
  },
};

export const OTLP_DESCRIPTOR: INamespace = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: { nested: { v1: { nested: common } } },
            resource: { nested: { v1: { nested: resource } } },
            trace: { nested: { v1: { nested: trace } } },
            collector: { nested: { trace: { nested: { v1: { nested: collector } } } } },
          },
        },
      },
    },
  },
};

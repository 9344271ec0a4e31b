import protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { decodeRequest, encodeResponse } from '#shared/otlp/decode.ts';
import { OTLP_DESCRIPTOR } from '#shared/otlp/descriptor.ts';
import { readSpans } from '#shared/otlp/spans.ts';

/**
 * The protobuf decoder (protobufjs's minimal Reader over the descriptor) against protobufjs's reflection
 * encoder of the same descriptor: exact 64-bit times, hex ids, skipped unknown fields, refused garbage.
 */
const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR);
const requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const responseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

const request = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeSpans: [
        {
          scope: { name: 'scope', version: '2' },
          spans: [
            {
              traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
              spanId: Buffer.from('b7ad6b7169203331', 'hex'),
              name: 'chat',
              kind: 3,
              startTimeUnixNano: '1700000000123456789',
              endTimeUnixNano: '1700000001987654321',
              attributes: [
                { key: 'big', value: { intValue: '9007199254740993' } },
                {
                  key: 'list',
                  value: { arrayValue: { values: [{ boolValue: true }, { doubleValue: 1.5 }] } },
                },
                {
                  key: 'map',
                  value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } },
                },
              ],
              status: { code: 2, message: 'boom' },
            },
          ],
        },
      ],
    },
  ],
};

const encoded = () => Buffer.from(requestType.encode(requestType.fromObject(request)).finish());

describe('OTLP protobuf decoding', () => {
  it('reads every field exactly, ids as hex and 64-bit values as decimal strings', () => {
    const { spans, rejected } = readSpans(decodeRequest(encoded(), 'protobuf'), 1_700_000_000_000_000_000n);
    expect(rejected).toEqual([]);
    expect(spans[0]).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: null,
      kind: 3,
      startNs: 1_700_000_000_123_456_789n,
      endNs: 1_700_000_001_987_654_321n,
      attributes: { big: '9007199254740993', list: [true, 1.5], map: { k: 'v' } },
      status: { code: 2, message: 'boom' },
      resource: { 'service.name': 'svc' },
      scope: { name: 'scope', version: '2' },
    });
  });

  it('skips fields it does not know (a newer exporter), and refuses a wrong wire type', () => {
    // Field 99, varint 1, appended at the top level: unknown, skipped.
    const withUnknown = Buffer.concat([encoded(), Buffer.from([0x98, 0x06, 0x01])]);
    expect(readSpans(decodeRequest(withUnknown, 'protobuf'), 1_700_000_000_000_000_000n).spans).toHaveLength(
      1,
    );
    // Field 1 (resourceSpans, a message) sent as a varint.
    expect(() => decodeRequest(Buffer.from([0x08, 0x01]), 'protobuf')).toThrow(/not a protobuf/);
  });

  it('encodes the answer as ExportTraceServiceResponse', () => {
    const bytes = encodeResponse('protobuf', { rejectedSpans: 3, errorMessage: 'why' }) as Buffer;
    expect(responseType.toObject(responseType.decode(bytes), { longs: Number })).toEqual({
      partialSuccess: { rejectedSpans: 3, errorMessage: 'why' },
    });
    expect((encodeResponse('protobuf', undefined) as Buffer).length).toBe(0);
  });
});

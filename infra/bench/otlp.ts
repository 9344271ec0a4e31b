import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { OTLP_DESCRIPTOR } from '#shared/otlp/descriptor.ts';
import { type BenchRow, fmt, percentile } from './support.ts';

/**
 * POST /v1/traces through the local gateway: 1,000-span protobuf exports (gzip), 100 of them model calls
 * in the GenAI convention (each a request log), the rest plain spans of ~0.5 KB. Prints the accepted
 * latency, the spans per second one caller sustains, and the DynamoDB items written per span.
 */
const SPANS = 1000;
const MODEL_CALLS = 100;
const BATCHES = 12;

const requestType = protobuf.Root.fromJSON(OTLP_DESCRIPTOR).lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
);

const attribute = (key: string, value: string | number) => ({
  key,
  value: typeof value === 'number' ? { intValue: value } : { stringValue: value },
});

function batch(): Buffer {
  const traceId = randomBytes(16);
  const rootId = randomBytes(8);
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: SPANS }, (_, i) => {
    const modelCall = i > 0 && i % (SPANS / MODEL_CALLS) === 0;
    const attributes = modelCall
      ? [
          attribute('gen_ai.operation.name', 'chat'),
          attribute('gen_ai.provider.name', 'openai'),
          attribute('gen_ai.request.model', 'gpt-4o-mini'),
          attribute('gen_ai.usage.input_tokens', 420),
          attribute('gen_ai.usage.output_tokens', 64),
          attribute(
            'gen_ai.input.messages',
            JSON.stringify([
              { role: 'user', parts: [{ type: 'text', content: `question ${i} ${'q'.repeat(400)}` }] },
            ]),
          ),
          attribute(
            'gen_ai.output.messages',
            JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'a'.repeat(300) }] }]),
          ),
        ]
      : [attribute('step', i), attribute('detail', 'd'.repeat(400))];
    return {
      traceId,
      spanId: i === 0 ? rootId : randomBytes(8),
      ...(i === 0 ? {} : { parentSpanId: rootId }),
      name: modelCall ? 'chat gpt-4o-mini' : `step ${i}`,
      kind: modelCall ? 3 : 1,
      startTimeUnixNano: String(start + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(start + BigInt(i) * 1_000_000n + 900_000n),
      attributes,
      status: { code: 1 },
    };
  });
  const request = {
    resourceSpans: [
      {
        resource: {
          attributes: [attribute('service.name', 'bench'), attribute('deployment.environment', 'local')],
        },
        scopeSpans: [{ scope: { name: 'bench', version: '1' }, spans }],
      },
    ],
  };
  return gzipSync(requestType.encode(requestType.fromObject(request)).finish());
}

/** Items written (a BatchWriteItem counts its requests) by the document client the handlers share. */
async function countWrites() {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const counter = { items: 0 };
  documentClient().middlewareStack.add(
    (next, context) => (args) => {
      const name = String(context.commandName);
      const input = args.input as { RequestItems?: Record<string, unknown[]> };
      if (name === 'BatchWriteItemCommand')
        counter.items += Object.values(input.RequestItems ?? {}).reduce((n, list) => n + list.length, 0);
      else if (name === 'PutItemCommand' || name === 'UpdateItemCommand' || name === 'DeleteItemCommand')
        counter.items++;
      return next(args);
    },
    { step: 'initialize', name: `benchOtlpWrites${Math.random()}` },
  );
  return counter;
}

export async function benchOtlpExports(service: { baseUrl: string; apiKey: string }): Promise<BenchRow[]> {
  const bodies = Array.from({ length: BATCHES }, batch);
  const writes = await countWrites();
  const post = async (body: Buffer) => {
    const response = await fetch(`${service.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-protobuf',
        'Content-Encoding': 'gzip',
        'X-API-KEY': service.apiKey,
      },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`/v1/traces answered ${response.status}`);
  };
  await post(bodies[0]!); // warm up: the handler's import, the id block
  writes.items = 0;
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  for (const body of bodies.slice(1)) {
    const start = process.hrtime.bigint();
    await post(body);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const spans = SPANS * samples.length;
  return [
    {
      name: `/v1/traces: ${SPANS}-span protobuf export (gzip ${fmt(bodies[0]!.length / 1024, 0)} KB), ${MODEL_CALLS} model calls, accepted`,
      value: `p50 ${fmt(percentile(samples, 50), 0)} ms, max ${fmt(Math.max(...samples), 0)} ms`,
      target: 'p50 < 300 ms',
    },
    {
      name: '/v1/traces: spans/s, one caller, exports in sequence',
      value: fmt(spans / seconds, 0),
      target: '',
    },
    {
      name: '/v1/traces: DynamoDB items written per span (spans, log claims, logs)',
      value: fmt(writes.items / spans, 2),
      target: '1 + 2 per model call',
    },
  ];
}

import { randomBytes } from 'node:crypto';
import { BatchGetCommand, BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { benchContext, proxyEvent } from './log-request.ts';
import { type BenchRow, countDynamoWaves, fmt, percentile } from './support.ts';

/**
 * POST /spans-bulk and GET /api/public/v2/traces/{trace_id} in-process: DynamoDB round trips of a full
 * batch (1,000 SDK-shaped spans of ~1 KB) and of reading that trace back, against the local emulators;
 * and the handler's own cost for such a batch with DynamoDB mocked.
 */
const SPANS = 1000;
const BASE_NS = 1_700_000_000_000_000_000n;

/** A batch as the SDK's exporter sends it: one trace, a root and 999 children, ~1 KB each. */
function sdkBatch(traceId: string): string {
  const root = randomBytes(8).toString('hex');
  const spans = Array.from({ length: SPANS }, (_, i) => ({
    name: `step ${i}`,
    context: { trace_id: traceId, span_id: i === 0 ? root : randomBytes(8).toString('hex'), trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: i === 0 ? null : root,
    start_time: (BASE_NS + BigInt(i) * 1_000_000n).toString(),
    end_time: (BASE_NS + BigInt(i) * 1_000_000n + 750_000n).toString(),
    status: { status_code: 'StatusCode.OK' },
    attributes: {
      function_input: JSON.stringify([{ question: `question ${i}`, context: 'x'.repeat(300) }]),
      function_output: JSON.stringify({ answer: 'y'.repeat(300) }),
    },
    events: [],
    links: [],
    resource: {
      attributes: {
        'service.name': 'prompt-layer-js',
        'telemetry.sdk.language': 'nodejs',
        'process.pid': 4242,
      },
      schema_url: '',
    },
  }));
  return JSON.stringify({ spans });
}

function traceEvent(traceId: string): APIGatewayProxyEvent {
  return {
    ...proxyEvent(''),
    body: null,
    httpMethod: 'GET',
    path: `/api/public/v2/traces/${traceId}`,
    resource: '/api/public/v2/traces/{trace_id}',
    pathParameters: { trace_id: traceId },
  };
}

/** Against the running local emulators (env set by the local runtime). */
export async function benchTraceCalls(): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const post = (await import('#functions/http/spans-bulk.ts')).handler;
  const get = (await import('#functions/http/trace-get.ts')).handler;
  const counter = countDynamoWaves(documentClient());
  const traceId = randomBytes(16).toString('hex');
  const body = sdkBatch(traceId);
  counter.reset();
  const posted = await post(proxyEvent(body), benchContext);
  if (posted.statusCode !== 201) throw new Error(`spans-bulk answered ${posted.statusCode}: ${posted.body}`);
  const postCalls = { ...counter };
  counter.reset();
  const read = await get(traceEvent(traceId), benchContext);
  if (read.statusCode !== 200) throw new Error(`trace answered ${read.statusCode}: ${read.body}`);
  return [
    {
      name: `spans-bulk: DynamoDB calls for ${SPANS} spans of ~1 KB (sequential waves)`,
      value: `${postCalls.calls} (${postCalls.waves} waves)`,
      target:
        '2 BatchGetItem (closure, trace index), 40 BatchWriteItem in 4 lanes, 4 UpdateItem (trace index)',
    },
    {
      name: `trace GET: DynamoDB calls for ${SPANS} spans (sequential waves), answer size`,
      value: `${counter.calls} (${counter.waves} waves), ${fmt(Buffer.byteLength(read.body) / 1024, 0)} KB`,
      target: '1 Query per MB of spans',
    },
  ];
}

/** Mocked DynamoDB: the handler's own cost for a full batch, warm. */
export async function benchTraceLatency(): Promise<BenchRow[]> {
  process.env.TABLE_NAME ??= 'bench';
  process.env.BUCKET_NAME ??= 'bench';
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const mock = mockClient(DynamoDBDocumentClient);
  mock.on(BatchWriteCommand).resolves({});
  mock.on(UpdateCommand).resolves({});
  mock.on(BatchGetCommand).resolves({});
  try {
    const post = (await import('#functions/http/spans-bulk.ts')).handler;
    const bodies = Array.from({ length: 5 }, () => sdkBatch(randomBytes(16).toString('hex')));
    for (let i = 0; i < 20; i++) await post(proxyEvent(bodies[i % 5]!), benchContext); // warm up (JIT)
    const samples: number[] = [];
    for (let i = 0; i < 100; i++) {
      const start = process.hrtime.bigint();
      const result = await post(proxyEvent(bodies[i % 5]!), benchContext);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (result.statusCode !== 201)
        throw new Error(`spans-bulk answered ${result.statusCode}: ${result.body}`);
    }
    return [
      {
        name: `spans-bulk: handler time for ${SPANS} spans (${fmt(Buffer.byteLength(bodies[0]!) / 1024, 0)} KB body), DynamoDB mocked, warm`,
        value: `p50 ${fmt(percentile(samples, 50))} ms, p99 ${fmt(percentile(samples, 99))} ms`,
        target: '',
      },
    ];
  } finally {
    mock.restore();
  }
}

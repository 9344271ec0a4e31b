import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { type BenchRow, countDynamoCalls, fmt, percentile } from './support.ts';

/**
 * POST /log-request in-process: DynamoDB calls per log against the local emulators, and the warm
 * latency of the handler with a 10 KB log when I/O is mocked (what the function itself costs).
 */
const AUTH = { workspaceId: '1', userId: '1', permissions: JSON.stringify({ request_logs: 'edit' }) };

/** `priced: false` leaves the price out, so the service prices the log (override cache, price table). */
export function tenKilobyteLog(i: number, { priced = true } = {}): string {
  const filler = 'The quick brown fox jumps over the lazy dog. '.repeat(105);
  return JSON.stringify({
    provider: 'openai',
    model: 'gpt-4o',
    input: {
      type: 'chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: `#${i} ${filler}` }] }],
    },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: filler }] }] },
    request_start_time: 1_705_314_600 + i,
    request_end_time: 1_705_314_601.25 + i,
    tags: ['bench', 'prod'],
    metadata: { session: `s-${i % 50}`, user: `u-${i % 7}` },
    input_tokens: 2400,
    output_tokens: 2300,
    ...(priced ? { price: 0.012 } : { usage: { cache_read_tokens: 1024, reasoning_tokens: 300 } }),
  });
}

export function proxyEvent(body: string, workspaceId = AUTH.workspaceId): APIGatewayProxyEvent {
  return {
    body,
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/log-request',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/log-request',
    requestContext: {
      authorizer: { ...AUTH, workspaceId },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export const benchContext = { awsRequestId: 'bench' } as Context;

/**
 * Against the running local emulators (env set by the local runtime): calls per log, for logs with the
 * client's price and for logs the service prices (their workspace's overrides read through the cache).
 */
export async function benchLogRequestCalls(): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { handler } = await import('#functions/http/log-request.ts');
  const rows: BenchRow[] = [];
  const counter = countDynamoCalls(documentClient());
  for (const priced of [true, false]) {
    counter.reset();
    const logs = 500;
    for (let i = 0; i < logs; i++) {
      const result = await handler(proxyEvent(tenKilobyteLog(i, { priced })), benchContext);
      if (result.statusCode !== 201)
        throw new Error(`log-request answered ${result.statusCode}: ${result.body}`);
    }
    const puts = counter.get('PutItemCommand');
    const blocks = counter.get('UpdateItemCommand');
    const overrides = counter.get('QueryCommand');
    const other = counter.total() - puts - blocks - overrides;
    rows.push({
      name: `log-request: DynamoDB calls per log (10 KB, 500 logs, ${priced ? "client's price" : 'priced by the service'})`,
      value: `${fmt(counter.total() / logs, 3)} (PutItem ${fmt(puts / logs, 3)}, id block ${fmt(blocks / logs, 3)}, price overrides ${fmt(overrides / logs, 3)}, other ${other})`,
      target: '1 write; <= 1.02 calls per log',
    });
  }
  return rows;
}

/** Mocked I/O: the handler's own cost, warm. */
export async function benchLogRequestLatency(): Promise<BenchRow[]> {
  process.env.TABLE_NAME ??= 'bench';
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const mock = mockClient(DynamoDBDocumentClient);
  let last = 0;
  mock.on(UpdateCommand).callsFake(() => {
    last += 100;
    return { Attributes: { last } };
  });
  mock.on(PutCommand).resolves({});
  try {
    const { handler } = await import('#functions/http/log-request.ts');
    const bodies = Array.from({ length: 50 }, (_, i) => tenKilobyteLog(i));
    for (let i = 0; i < 2_000; i++) await handler(proxyEvent(bodies[i % 50] ?? ''), benchContext); // warm up (JIT)
    const samples: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      const event = proxyEvent(bodies[i % 50] ?? '');
      const start = process.hrtime.bigint();
      const result = await handler(event, benchContext);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (result.statusCode !== 201)
        throw new Error(`log-request answered ${result.statusCode}: ${result.body}`);
    }
    return [
      {
        name: 'log-request: warm handler latency, 10 KB log, mocked I/O',
        value: `p50 ${fmt(percentile(samples, 50), 3)} ms, p99 ${fmt(percentile(samples, 99), 3)} ms`,
        target: 'p50 < 1 ms',
      },
    ];
  } finally {
    mock.restore();
  }
}

/** A /track-request body as the SDK's OpenAI wrapper sends it: a chat completion of about 10 KB. */
export function trackRequestBody(apiKey: string, i: number): string {
  const filler = 'The quick brown fox jumps over the lazy dog. '.repeat(105);
  const now = Date.now();
  return JSON.stringify({
    api_key: apiKey,
    function_name: 'openai.chat.completions.create',
    provider_type: 'openai',
    kwargs: { model: 'gpt-4o', temperature: 0.2, messages: [{ role: 'user', content: `#${i} ${filler}` }] },
    request_response: {
      id: `chatcmpl-${i}`,
      object: 'chat.completion',
      model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, message: { role: 'assistant', content: filler }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2400, completion_tokens: 2300, total_tokens: 4700 },
    },
    request_start_time: new Date(now - 1200).toISOString(),
    request_end_time: new Date(now).toISOString(),
    tags: ['bench'],
    return_pl_id: true,
  });
}

/** Against the running local emulators: DynamoDB calls per tracked request (key check included). */
export async function benchTrackRequestCalls(apiKey: string): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { handler } = await import('#functions/http/track-request.ts');
  const counter = countDynamoCalls(documentClient());
  const calls = 500;
  for (let i = 0; i < calls; i++) {
    const event = {
      ...proxyEvent(trackRequestBody(apiKey, i)),
      path: '/track-request',
      resource: '/track-request',
    };
    // No authorizer context: the route checks the body's key itself.
    event.requestContext = { authorizer: null } as unknown as APIGatewayProxyEvent['requestContext'];
    const result = await handler(event, benchContext);
    if (result.statusCode !== 200)
      throw new Error(`track-request answered ${result.statusCode}: ${result.body}`);
  }
  const puts = counter.get('PutItemCommand');
  const blocks = counter.get('UpdateItemCommand');
  const keyReads = counter.get('GetItemCommand');
  const other = counter.total() - puts - blocks - keyReads;
  return [
    {
      name: 'track-request: DynamoDB calls per call (10 KB chat completion, 500 calls)',
      value: `${fmt(counter.total() / calls, 3)} (PutItem ${fmt(puts / calls, 3)}, id block ${fmt(blocks / calls, 3)}, key lookups ${keyReads}, other ${other})`,
      target: '1 write per call, as log-request',
    },
  ];
}

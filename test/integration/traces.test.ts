import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordDynamoCommands, type SentCommand } from '#test/support/dynamo-commands.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The span store against the emulators of the local runtime: item layout, the S3 overflow of large
 * details, the round trips a batch and a trace read cost, and the caps of a trace read. Every DynamoDB
 * command the code sends is recorded.
 */
let service: TestService;
let m: {
  answerLimit: typeof import('#shared/platform/answer-limit.ts');
  http: typeof import('#shared/platform/http.ts');
  dynamo: typeof import('#shared/platform/dynamo.ts');
  schemas: typeof import('#shared/traces/schemas.ts');
  ingest: typeof import('#shared/traces/ingest.ts');
  read: typeof import('#shared/traces/read.ts');
  repository: typeof import('#shared/traces/repository.ts');
};
let sent: SentCommand[];

beforeAll(async () => {
  service = await startTestService();
  m = {
    answerLimit: await import('#shared/platform/answer-limit.ts'),
    http: await import('#shared/platform/http.ts'),
    dynamo: await import('#shared/platform/dynamo.ts'),
    schemas: await import('#shared/traces/schemas.ts'),
    ingest: await import('#shared/traces/ingest.ts'),
    read: await import('#shared/traces/read.ts'),
    repository: await import('#shared/traces/repository.ts'),
  };
  sent = await recordDynamoCommands();
});
afterAll(() => service?.stop());
beforeEach(() => {
  sent.length = 0;
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const counts = () => {
  const byName: Record<string, number> = {};
  for (const { name } of sent) byName[name] = (byName[name] ?? 0) + 1;
  return byName;
};

function span(traceId: string, spanId: string, i: number, attributes: Record<string, unknown> = {}) {
  return {
    name: `op ${i}`,
    context: { trace_id: traceId, span_id: spanId, trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: null,
    start_time: String(1_700_000_000_000_000_000n + BigInt(i) * 1000n),
    end_time: String(1_700_000_000_000_000_000n + BigInt(i) * 1000n + 500n),
    status: { status_code: 'StatusCode.OK' },
    attributes,
    resource: { attributes: { 'service.name': 'test' }, schema_url: '' },
  };
}

/** Stores spans through the domain exactly as the route does. */
function store(spans: Record<string, unknown>[]) {
  const raw = { spans };
  const body = m.http.validate(m.schemas.spansBulkBodySchema, raw, 'body');
  return m.ingest.createSpansBulk(service.workspaceId, body, raw);
}

async function rawItem(traceId: string, spanId: string) {
  const { Item } = await m.dynamo.dynamo.send(
    new GetCommand({
      TableName: m.dynamo.table(),
      Key: m.repository.spanKey(service.workspaceId, traceId, spanId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('storage', () => {
  it('keeps one item per span under the workspace and trace, the detail inline while small', async () => {
    const trace = hex(16);
    await store([span(trace, 'aa', 1, { small: 'yes' })]);

    const item = await rawItem(trace, 'aa');

    expect(item).toMatchObject({
      PK: `W#${service.workspaceId}#TR#${trace}`,
      SK: 'SP#aa',
      detail: expect.stringContaining('"small":"yes"'),
      detailBytes: expect.any(Number),
    });
    expect(item?.docKey).toBeUndefined();
    expect(JSON.parse(item?.doc)).toMatchObject({ span_id: 'aa', start_ns: '1700000000000001000' });
  });

  it('moves a detail over the inline limit to S3, keeping the pointer and its size', async () => {
    const trace = hex(16);
    const big = 'y'.repeat(m.repository.INLINE_DETAIL_BYTES);
    await store([span(trace, 'bb', 1, { big })]);

    const item = await rawItem(trace, 'bb');

    expect(item?.detail).toBeUndefined();
    expect(item?.detailKey).toBe(`traces/${service.workspaceId}/${trace}/bb.json`);
    expect(item?.detailBytes).toBeGreaterThan(m.repository.INLINE_DETAIL_BYTES);
  });

  it('writes 1,000 spans of a new trace in batches of 25, with two reads (closure, trace index) and one summary update', async () => {
    const trace = hex(16);
    const spans = Array.from({ length: 1000 }, (_, i) => span(trace, hex(8), i));

    const answer = await store(spans);

    expect(answer.spans).toHaveLength(1000);
    // One read is the closure check: a closed trace refuses later spans (409), docs/otlp.md. The other
    // finds the batch's traces already in the trace index: this one is not, so its spans replace nothing
    // counted and are not read. The summary takes the counts, then the start, the end and the root.
    expect(counts()).toEqual({ BatchGetItemCommand: 2, BatchWriteItemCommand: 40, UpdateItemCommand: 4 });
  });

  it('reads what a batch replaces, 100 spans a call, once its trace is indexed', async () => {
    const trace = hex(16);
    const spans = Array.from({ length: 1000 }, (_, i) => span(trace, hex(8), i));
    await store(spans.slice(0, 1));
    sent.length = 0;

    await store(spans);

    // Closure, trace index, 10 reads of the spans replaced; the summary takes the counts, the later end,
    // and the root sent again (its name may have changed); the start did not move.
    expect(counts()).toEqual({ BatchGetItemCommand: 12, BatchWriteItemCommand: 40, UpdateItemCommand: 3 });
    const { Item } = await m.dynamo.dynamo.send(
      new GetCommand({
        TableName: m.dynamo.table(),
        Key: { PK: `W#${service.workspaceId}#TR#${trace}`, SK: 'SUMMARY' },
        ConsistentRead: true,
      }),
    );
    // Span 0, sent twice, counts once.
    expect(Item).toMatchObject({ spanCount: 1000, errorCount: 0, rootName: 'op 0' });
  });

  it('counts a batch once when its call failed after counting and is sent again (the SDK retries)', async () => {
    const trace = hex(16);
    await store([span(trace, 'a1', 0)]);
    const failed = { ...span(trace, 'b2', 1), status: { status_code: 'StatusCode.ERROR' } };
    const batch = [span(trace, 'a1', 0), failed, span(trace, 'c3', 2)];
    // The span write fails once (a throttled BatchWriteItem the SDK gave up on), after the summary update.
    let failures = 1;
    const { documentClient } = await import('#shared/platform/dynamo.ts');
    documentClient().middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'BatchWriteItemCommand' && failures > 0) {
          failures--;
          throw Object.assign(new Error('Throughput exceeded (test)'), {
            name: 'ProvisionedThroughputExceededException',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'failOneSpanWrite' },
    );
    try {
      await expect(store(batch)).rejects.toThrow('Throughput exceeded (test)');
      await store(batch);
    } finally {
      documentClient().middlewareStack.remove('failOneSpanWrite');
    }
    const { Item } = await m.dynamo.dynamo.send(
      new GetCommand({
        TableName: m.dynamo.table(),
        Key: { PK: `W#${service.workspaceId}#TR#${trace}`, SK: 'SUMMARY' },
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ spanCount: 3, errorCount: 1 });
    expect(await rawItem(trace, 'c3')).toBeDefined();
  });
});

describe('reading a trace', () => {
  it('reads a trace in Query pages and answers it in one round trip per page', async () => {
    const trace = hex(16);
    await store(Array.from({ length: 300 }, (_, i) => span(trace, hex(8), i)));
    sent.length = 0;

    const answer = await m.read.getTrace(service.workspaceId, trace);

    expect(answer).toMatchObject({ span_count: 300, truncated: false, detail_truncated: false });
    expect(Object.keys(counts())).toEqual(['QueryCommand']);
    expect(
      sent.every(
        ({ input }) =>
          (input.ExpressionAttributeValues as Record<string, string>)[':pk'] ===
          `W#${service.workspaceId}#TR#${trace}`,
      ),
    ).toBe(true);
  });

  it(`stops at ${2000} spans and says the trace is truncated`, async () => {
    const trace = hex(16);
    const spans = Array.from({ length: m.read.MAX_TRACE_SPANS + 5 }, (_, i) => span(trace, hex(8), i));
    for (let i = 0; i < spans.length; i += 1000) await store(spans.slice(i, i + 1000));

    const answer = await m.read.getTrace(service.workspaceId, trace);

    expect(answer.span_count).toBe(m.read.MAX_TRACE_SPANS);
    expect(answer.truncated).toBe(true);
    expect(answer.spans).toHaveLength(m.read.MAX_TRACE_SPANS);
  });

  it('answers within its byte budget: spans whose detail does not fit come without it', async () => {
    const trace = hex(16);
    const chunk = 'z'.repeat(400_000);
    await store(Array.from({ length: 10 }, (_, i) => span(trace, `c${i}`, i, { chunk })));

    const answer = await m.read.getTrace(service.workspaceId, trace);

    expect(answer).toMatchObject({ span_count: 10, truncated: false, detail_truncated: true });
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(
      m.answerLimit.PLAIN_ANSWER_BUDGET_BYTES,
    );
    const withDetail = answer.spans.filter((s) => s.attributes);
    expect(withDetail.map((s) => s.span_id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(answer.spans[9]).toMatchObject({ span_id: 'c9', detail_omitted: true });
    expect(answer.spans[9]?.attributes).toBeUndefined();
  });
});

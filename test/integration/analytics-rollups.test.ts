import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The rollup store against dynalite: changes applied through `applyLogChanges` (what the change-feed
 * consumer calls) and read back through `readRollupWindow` (what monitors and analytics call). Counts
 * stay exact when batches are delivered again, in part, or out of order, and across shards.
 */
let service: TestService;
let store: typeof import('#shared/analytics/rollup-store.ts');
let query: typeof import('#shared/analytics/rollup-query.ts');

beforeAll(async () => {
  service = await startTestService();
  store = await import('#shared/analytics/rollup-store.ts');
  query = await import('#shared/analytics/rollup-query.ts');
});
afterAll(() => service?.stop());

type RolledUpRecord = import('#shared/analytics/facts.ts').RolledUpRecord;
type LogChange = import('#shared/analytics/rollup-store.ts').LogChange;

// The last whole hour: 5-minute buckets are only written while they are kept.
const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const log = (i: number, overrides: Partial<RolledUpRecord> = {}): RolledUpRecord => ({
  provider: 'openai',
  model: i % 2 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
  tags: [],
  metadata: { user_id: `u${i % 3}` },
  prompt_id: null,
  prompt_name: null,
  prompt_version_number: null,
  input_tokens: 100 + i,
  output_tokens: 10,
  price: 0.001 * (i + 1),
  status: i % 5 === 0 ? 'ERROR' : 'SUCCESS',
  error_type: i % 5 === 0 ? 'timeout' : null,
  request_start_time: NOW - 3 * 3_600_000 + i * 60_000,
  request_end_time: NOW - 3 * 3_600_000 + i * 60_000 + 100 + i,
  ...overrides,
});

let workspace = 900;
const inserts = (ws: number, shard: string, count: number, firstSeq = 1): LogChange[] =>
  Array.from({ length: count }, (_, i) => ({
    shard,
    sequence: String(firstSeq + i),
    workspaceId: ws,
    after: log(i),
  }));

const window = { fromMs: NOW - 24 * 3_600_000, toMs: NOW };

describe('rollup store', () => {
  it('counts a batch once when it is delivered again, whole or from its middle', async () => {
    const ws = ++workspace;
    const batch = inserts(ws, 'shard-a', 40);
    await store.applyLogChanges(batch);
    await store.applyLogChanges(batch);
    await store.applyLogChanges(batch.slice(17));
    // A later batch that repeats the tail of the previous one (a retry from a failed record) adds only the new.
    const next = inserts(ws, 'shard-a', 10, 41).map((c, i) => ({ ...c, after: log(40 + i) }));
    await store.applyLogChanges([...batch.slice(30), ...next]);
    const answer = await query.readRollupWindow(ws, window, { nowMs: NOW });
    expect(answer.totals.requests).toBe(50);
    const expectedCost = Array.from({ length: 50 }, (_, i) => 0.001 * (i + 1)).reduce((a, b) => a + b, 0);
    expect(answer.totals.cost).toBeCloseTo(expectedCost, 9);
    expect(answer.totals.errors).toBe(10);
    expect(answer.totals.inputTokens).toBe(
      Array.from({ length: 50 }, (_, i) => 100 + i).reduce((a, b) => a + b),
    );
  });

  it('counts shards independently, in any order, and ignores an old batch delivered late', async () => {
    const ws = ++workspace;
    const a = inserts(ws, 'shard-a', 20, 1000);
    const b = inserts(ws, 'shard-b', 20, 5).map((c, i) => ({ ...c, after: log(20 + i) }));
    await Promise.all([store.applyLogChanges(a.slice(10)), store.applyLogChanges(b)]);
    // shard-a's first half arrives after its second: its sequence numbers are below the mark, so it is
    // a redelivery as far as the items are concerned (a shard delivers in order).
    await store.applyLogChanges(a.slice(0, 10));
    const answer = await query.readRollupWindow(ws, window, { nowMs: NOW, groupBy: 'model' });
    expect(answer.totals.requests).toBe(30);
    expect(answer.groups?.map((g) => [g.value, g.totals.requests])).toEqual([
      ['gpt-4o', 15],
      ['gpt-4o-mini', 15],
    ]);
  });

  it('moves a log between values when an update replaces its image, and forgets a removed log', async () => {
    const ws = ++workspace;
    await store.applyLogChanges(inserts(ws, 's', 3));
    const before = log(0);
    const after = log(0, { metadata: { user_id: 'vip' }, price: 5 });
    await store.applyLogChanges([{ shard: 's', sequence: '10', workspaceId: ws, before, after }]);
    await store.applyLogChanges([{ shard: 's', sequence: '11', workspaceId: ws, before: log(1) }]);
    const byUser = await query.readRollupWindow(ws, window, { nowMs: NOW, groupBy: 'metadata.user_id' });
    expect(byUser.totals.requests).toBe(2);
    expect(Object.fromEntries(byUser.groups!.map((g) => [g.value, g.totals.requests]))).toEqual({
      u2: 1,
      vip: 1,
    });
    const vip = await query.readRollupWindow(ws, window, {
      nowMs: NOW,
      filter: { dimension: 'metadata.user_id', value: 'vip' },
    });
    expect(vip.totals.cost).toBe(5);
    expect(vip.totals.latencyQuantile(0.5)).toBeCloseTo(100, -1);
  });

  it('reads a window of 30 days from a few dozen items', async () => {
    const ws = ++workspace;
    // One log every 6 hours for 30 days.
    const changes: LogChange[] = Array.from({ length: 30 * 4 }, (_, h) => ({
      shard: 's',
      sequence: String(h + 1),
      workspaceId: ws,
      after: log(h, {
        request_start_time: NOW - (h + 1) * 6 * 3_600_000,
        request_end_time: NOW - (h + 1) * 6 * 3_600_000 + 50,
      }),
    }));
    await store.applyLogChanges(changes);
    const answer = await query.readRollupWindow(
      ws,
      { fromMs: NOW - 30 * 86_400_000, toMs: NOW },
      { nowMs: NOW },
    );
    expect(answer.totals.requests).toBe(120);
    expect(answer.itemsRead).toBeLessThanOrEqual(31 + 24);
    await expect(
      query.readRollupWindow(ws, window, { filter: { dimension: 'model', value: 'x' }, groupBy: 'tag' }),
    ).rejects.toThrow(query.RollupUnanswerableError);
  });

  it('takes DynamoDB stream events through the consumer handler, exact when a batch comes twice', async () => {
    const ws = ++workspace;
    const { handler } = await import('#functions/changes/request-log-rollups.ts');
    const image = (id: number, record: RolledUpRecord) => ({
      PK: { S: `W#${ws}#RL#${id}` },
      SK: { S: 'RL' },
      doc: { S: JSON.stringify({ id, workspace_id: ws, ...record }) },
    });
    const streamRecord = (seq: number, id: number, before?: RolledUpRecord, after?: RolledUpRecord) => ({
      eventName: (before && after ? 'MODIFY' : after ? 'INSERT' : 'REMOVE') as 'MODIFY',
      eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x',
      dynamodb: {
        SequenceNumber: String(seq),
        Keys: { PK: { S: `W#${ws}#RL#${id}` }, SK: { S: 'RL' } },
        ...(before ? { OldImage: image(id, before) } : {}),
        ...(after ? { NewImage: image(id, after) } : {}),
      },
    });
    const first = {
      shardId: 'shard-1',
      Records: [1, 2, 3].map((i) => streamRecord(i, i, undefined, log(i))),
    };
    const update = {
      shardId: 'shard-1',
      Records: [streamRecord(4, 1, log(1), log(1, { metadata: { user_id: 'moved' } }))],
    };
    expect(await handler(first)).toEqual({ batchItemFailures: [] });
    expect(await handler(update)).toEqual({ batchItemFailures: [] });
    // Redelivered after the update: nothing changes.
    await handler(first);
    await handler(update);
    const answer = await query.readRollupWindow(ws, window, { nowMs: NOW, groupBy: 'metadata.user_id' });
    expect(answer.totals.requests).toBe(3);
    expect(Object.fromEntries(answer.groups!.map((g) => [g.value, g.totals.requests]))).toEqual({
      moved: 1,
      u2: 1,
      u0: 1,
    });
  });

  it('examines logs for the logs path within a budget, and says when it ran out', async () => {
    const { examineMatches } = await import('#shared/request-logs/query.ts');
    const key = await service.otherWorkspaceKey('analytics-budget');
    for (let i = 0; i < 3; i++) {
      const answer = await service.call('POST', '/log-request', {
        key,
        body: logRequestBody({ tags: ['b'] }),
      });
      expect(answer.status).toBe(201);
    }
    const { findApiKey } = await import('#shared/auth/api-keys.ts');
    const ws = (await findApiKey(key))!.workspaceId;
    const seen: number[] = [];
    const cut = await examineMatches(ws, {}, 2, (records) => seen.push(...records.map((r) => r.id)));
    expect(cut.complete).toBe(false);
    expect(seen).toHaveLength(2);
    seen.length = 0;
    expect(
      await examineMatches(ws, { q: 'hello' }, 10, (records) => seen.push(...records.map((r) => r.id))),
    ).toEqual({
      complete: true,
    });
    expect(seen).toHaveLength(3);
  });
});

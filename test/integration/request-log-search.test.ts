import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordDynamoCommands, type SentCommand } from '#test/support/dynamo-commands.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Request-log queries against dynalite and s3rver: a few hundred logs in two workspaces, some held in
 * S3, searched with the filters a user combines. Expected ids come from plain predicates written here,
 * not from the filter engine. Every DynamoDB command the code sends is recorded, to see the plan used.
 */
type RequestLogRecord = import('#shared/request-logs/record.ts').RequestLogRecord;
type FilterGroup = import('#shared/request-logs/filters.ts').FilterGroup;

let service: TestService;
let other: number;
let m: {
  query: typeof import('#shared/request-logs/query.ts');
  search: typeof import('#shared/request-logs/search.ts');
  repository: typeof import('#shared/request-logs/repository.ts');
};
let sent: SentCommand[];

const BASE = Date.UTC(2024, 4, 1);
const MINUTE = 60_000;
const COUNT = 300;
const BIG = new Set([5, 50, 123]);
const logs: RequestLogRecord[] = [];

function record(workspaceId: number, id: number, i: number): RequestLogRecord {
  const start = BASE + i * 37 * MINUTE;
  const status = i % 7 === 0 ? 'ERROR' : i % 5 === 0 ? 'WARNING' : 'SUCCESS';
  const question = BIG.has(i) ? `question ${i} ${'padding '.repeat(45_000)}` : `question ${i}`;
  return {
    id,
    workspace_id: workspaceId,
    provider: i % 2 === 0 ? 'openai' : 'anthropic',
    model: i % 2 === 0 ? 'gpt-4o' : 'claude-sonnet-4',
    api_type: null,
    function_name: '',
    input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: question }] }] },
    output: {
      type: 'chat',
      messages: [
        { role: 'assistant', content: [{ type: 'text', text: i % 11 === 0 ? 'A Banana split' : 'ok' }] },
      ],
    },
    parameters: {},
    tags: [...(i % 3 === 0 ? ['prod'] : []), ...(i % 4 === 0 ? ['eu'] : [])],
    metadata: { env: i % 2 === 0 ? 'prod' : 'staging', user: `u-${i % 10}` },
    prompt_id: i % 4 === 0 ? null : 1 + (i % 3),
    prompt_name: null,
    prompt_version_number: null,
    prompt_input_variables: {},
    input_tokens: (i * 37) % 500,
    output_tokens: (i * 53) % 300,
    price: ((i * 13) % 100) / 1000,
    score: 0,
    scores: { default: 0 },
    status,
    error_type: null,
    error_message: null,
    request_start_time: start,
    request_end_time: start + ((i * 97) % 5000),
    created_at: start,
  };
}

beforeAll(async () => {
  service = await startTestService();
  const { ensureWorkspace } = await import('#shared/auth/api-keys.ts');
  other = (await ensureWorkspace('search-other')).workspaceId;
  sent = await recordDynamoCommands();
  m = {
    query: await import('#shared/request-logs/query.ts'),
    search: await import('#shared/request-logs/search.ts'),
    repository: await import('#shared/request-logs/repository.ts'),
  };
  const { nextId } = await import('#shared/platform/ids.ts');
  for (let i = 0; i < COUNT; i++) logs.push(record(service.workspaceId, await nextId('request_log'), i));
  // The other workspace holds the same kinds of logs: none of them may ever show up.
  const foreign: RequestLogRecord[] = [];
  for (let i = 0; i < 40; i++) foreign.push(record(other, await nextId('request_log'), i));
  for (let i = 0; i < logs.length + foreign.length; i += 20) {
    await Promise.all([...logs, ...foreign].slice(i, i + 20).map((log) => m.repository.putRequestLog(log)));
  }
});
afterAll(() => service?.stop());
beforeEach(() => {
  sent.length = 0;
});

const newestFirst = (a: RequestLogRecord, b: RequestLogRecord) =>
  b.request_start_time - a.request_start_time || b.id - a.id;
const idsOf = (records: { id: number }[]) => records.map((r) => r.id);
const expected = (keep: (r: RequestLogRecord, i: number) => boolean) =>
  idsOf(logs.filter(keep).sort(newestFirst));
const at = (i: number) => new Date(BASE + i * 37 * MINUTE).toISOString();

async function all(
  workspaceId: number,
  query: Parameters<typeof m.query.matchingRequestLogs>[1],
  cap = 50_000,
) {
  const out: RequestLogRecord[] = [];
  for await (const batch of m.query.matchingRequestLogs(workspaceId, query, cap)) out.push(...batch);
  return out;
}

async function search(body: Record<string, unknown>) {
  return m.search.searchRequestLogs(service.workspaceId, { page: 1, per_page: 25, ...body });
}

const names = () => sent.map((c) => c.name);
const queries = () => sent.filter((c) => c.name === 'QueryCommand').map((c) => c.input);

describe('search plans', () => {
  const timeTagMetaStatus: FilterGroup = {
    logic: 'AND',
    filters: [
      { field: 'request_start_time', operator: 'between', value: [at(40), at(250)] },
      { field: 'tags', operator: 'contains', value: 'prod' },
      { field: 'metadata', operator: 'key_equals', nested_key: 'env', value: 'prod' },
      { field: 'status', operator: 'in', value: ['ERROR', 'WARNING'] },
    ],
  };
  const keep = (r: RequestLogRecord, i: number) =>
    i >= 40 && i <= 250 && i % 3 === 0 && i % 2 === 0 && r.status !== 'SUCCESS';

  it('finds exactly the logs of a time range, tag, metadata key and status, through GSI3 and no Scan', async () => {
    const want = expected(keep);
    expect(want.length).toBeGreaterThan(5);
    const found = await all(service.workspaceId, { filter_group: timeTagMetaStatus });
    expect(idsOf(found)).toEqual(want);

    expect(names()).not.toContain('ScanCommand');
    const used = queries();
    expect(used.map((q) => q.IndexName)).toEqual(['GSI3', 'GSI3']);
    expect(used.map((q) => (q.ExpressionAttributeValues as Record<string, string>)[':pk'])).toEqual([
      `W#${service.workspaceId}#RLS#WARNING`,
      `W#${service.workspaceId}#RLS#ERROR`,
    ]);
    for (const q of used) {
      expect(q.KeyConditionExpression).toContain('BETWEEN');
      expect((q.ExpressionAttributeValues as Record<string, string>)[':from']).toMatch(
        new RegExp(`^0*${BASE + 40 * 37 * MINUTE}#`),
      );
    }
  });

  it('answers the same through search, with the total, one page and the reference item fields', async () => {
    const want = expected(keep);
    const page = await search({ filter_group: timeTagMetaStatus, per_page: 3, page: 2 });
    expect(page).toMatchObject({
      success: true,
      total: want.length,
      page: 2,
      per_page: 3,
      pages: Math.ceil(want.length / 3),
      has_prev: true,
      prev_num: 1,
      incomplete_results: false,
    });
    expect(idsOf(page.items)).toEqual(want.slice(3, 6));
    expect(Object.keys(page.items[0]!)).toEqual(
      expect.arrayContaining([
        'id',
        'engine',
        'provider_type',
        'input_tokens',
        'output_tokens',
        'price',
        'request_start_time',
        'request_end_time',
        'latency',
        'tags_array',
        'metadata',
        'scores',
        'prompt_name',
      ]),
    );
    expect(names()).not.toContain('ScanCommand');
  });

  it('reads one prompt through GSI2, time-bounded', async () => {
    const group: FilterGroup = {
      filters: [
        { field: 'prompt_id', operator: 'eq', value: 2 },
        { field: 'request_start_time', operator: 'before', value: at(100) },
      ],
    };
    const found = await all(service.workspaceId, { filter_group: group });
    expect(idsOf(found)).toEqual(expected((r, i) => r.prompt_id === 2 && i < 100));
    // One Query per shard of the prompt's partition, nothing else.
    expect(queries().map((q) => q.IndexName)).toEqual(['GSI2', 'GSI2', 'GSI2', 'GSI2']);
    expect(names()).not.toContain('ScanCommand');
  });

  it('reads every log through GSI1 for a filter without bounds, and q matches text held in S3', async () => {
    const found = await all(service.workspaceId, { q: 'QUESTION 5 padding' });
    expect(idsOf(found)).toEqual(expected((_, i) => i === 5));
    const banana = await all(service.workspaceId, { q: 'banana', sort_order: 'asc' });
    expect(idsOf(banana)).toEqual(expected((_, i) => i % 11 === 0).reverse());
    expect(new Set(queries().map((q) => q.IndexName))).toEqual(new Set(['GSI1']));
    expect(names()).not.toContain('ScanCommand');
  });

  it('reads nothing at all when the filter cannot match', async () => {
    const group: FilterGroup = {
      filters: [
        { field: 'status', operator: 'is', value: 'SUCCESS' },
        { field: 'status', operator: 'is', value: 'ERROR' },
      ],
    };
    expect(await all(service.workspaceId, { filter_group: group })).toEqual([]);
    expect((await search({ filter_group: group })).total).toBe(0);
    expect(sent).toEqual([]);
  });

  it('keeps other workspaces out', async () => {
    const found = await all(other, {});
    expect(found).toHaveLength(40);
    expect(found.every((r) => r.workspace_id === other)).toBe(true);
  });
});

describe('sorting and limits', () => {
  const byCostDesc = (a: RequestLogRecord, b: RequestLogRecord) =>
    b.price - a.price || b.request_start_time - a.request_start_time || b.id - a.id;

  it('sorts by cost across pages, every page reading only what it shows again', async () => {
    const want = idsOf(logs.filter((r) => r.metadata.env === 'staging').sort(byCostDesc));
    const body = {
      filter_group: {
        filters: [{ field: 'metadata', operator: 'key_equals', nested_key: 'env', value: 'staging' }],
      },
      sort_by: 'cost',
      sort_order: 'desc',
    };
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(want.length / 25); page++) {
      sent.length = 0;
      const answer = await search({ ...body, page });
      seen.push(...idsOf(answer.items));
      expect(answer.total).toBe(want.length);
      const gets = sent.filter((c) => c.name === 'BatchGetItemCommand');
      expect(gets).toHaveLength(1);
    }
    expect(seen).toEqual(want);
  });

  it.each([
    ['input_tokens', (r: RequestLogRecord) => r.input_tokens],
    ['output_tokens', (r: RequestLogRecord) => r.output_tokens],
    ['latency_ms', (r: RequestLogRecord) => r.request_end_time - r.request_start_time],
    ['status', (r: RequestLogRecord) => ({ RUNNING: -1, SUCCESS: 0, WARNING: 1, ERROR: 2 })[r.status]],
  ] as const)('sorts by %s ascending', async (field, value) => {
    const want = idsOf(
      [...logs].sort(
        (a, b) => value(a) - value(b) || a.request_start_time - b.request_start_time || a.id - b.id,
      ),
    );
    const found = await all(service.workspaceId, { sort_by: field, sort_order: 'asc' });
    expect(idsOf(found)).toEqual(want);
  });

  it('stops at the cap and at the limit, in sort order', async () => {
    const newest = idsOf([...logs].sort(newestFirst));
    expect(idsOf(await all(service.workspaceId, {}, 7))).toEqual(newest.slice(0, 7));
    expect(idsOf(await all(service.workspaceId, { limit: 4 }, 7))).toEqual(newest.slice(0, 4));
    const cheapest = idsOf(
      [...logs].sort(
        (a, b) => a.price - b.price || a.request_start_time - b.request_start_time || a.id - b.id,
      ),
    );
    expect(idsOf(await all(service.workspaceId, { sort_by: 'cost', sort_order: 'asc', limit: 9 }))).toEqual(
      cheapest.slice(0, 9),
    );
  });

  it('gets named logs by id (precedence over the filter), skipping unknown and foreign ids', async () => {
    const named = [logs[10]!, logs[5]!, logs[200]!, logs[42]!];
    const foreignId = (await all(other, {}, 1))[0]!.id;
    sent.length = 0;
    const ids = [...idsOf(named), foreignId, 999_999_999];
    const filter_group: FilterGroup = { filters: [{ field: 'engine', operator: 'is', value: 'nothing' }] };
    const byTime = await all(service.workspaceId, { request_log_ids: ids, filter_group });
    expect(idsOf(byTime)).toEqual(idsOf([...named].sort(newestFirst)));
    expect(byTime.find((r) => r.id === logs[5]!.id)?.input).toEqual(logs[5]!.input);
    const byCost = await all(service.workspaceId, {
      request_log_ids: ids,
      sort_by: 'cost',
      sort_order: 'desc',
    });
    expect(idsOf(byCost)).toEqual(idsOf([...named].sort(byCostDesc)));
    expect(new Set(names())).toEqual(new Set(['BatchGetItemCommand']));
  });

  it('fetches 50,000 named ids in chunks of 100', async () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => (i < logs.length ? logs[i]!.id : 10_000_000 + i));
    const found = await all(service.workspaceId, { request_log_ids: ids, limit: 3 });
    expect(idsOf(found)).toEqual(idsOf([...logs].sort(newestFirst).slice(0, 3)));
    const gets = sent.filter((c) => c.name === 'BatchGetItemCommand');
    const keys = gets.map(
      (c) => Object.values(c.input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!.Keys,
    );
    expect(keys.every((k) => k.length <= 100)).toBe(true);
    expect(keys.reduce((n, k) => n + k.length, 0)).toBe(50_000 + 3);
  });
});

describe('the examination budget', () => {
  it('marks a window cut short by its budget as incomplete, covering the newest logs', async () => {
    const window = await m.query.requestLogWindow(
      service.workspaceId,
      {},
      { offset: 0, count: 5, maxExamined: 50 },
    );
    expect(window.complete).toBe(false);
    expect(window.total).toBe(50);
    expect(idsOf(window.records)).toEqual(idsOf([...logs].sort(newestFirst).slice(0, 5)));
    const exact = await m.query.requestLogWindow(
      service.workspaceId,
      {},
      { offset: 0, count: 5, maxExamined: COUNT },
    );
    expect(exact).toMatchObject({ complete: true, total: COUNT });
  });
});

describe('windows after a place, without a count (cursor paging)', () => {
  const eu = { filters: [{ field: 'tags', operator: 'contains', value: 'eu' }] } as FilterGroup;

  it('reads about a page: every index Query asks for a bounded number of logs', async () => {
    const window = await m.query.requestLogWindow(
      service.workspaceId,
      {},
      { offset: 0, count: 25, maxExamined: 50_000, countAll: false },
    );
    expect(idsOf(window.records)).toEqual(idsOf([...logs].sort(newestFirst).slice(0, 25)));
    expect(window).toMatchObject({ total: null, more: true, complete: true });
    const queries = sent.filter((c) => c.name === 'QueryCommand');
    // One Query of 26 per shard of GSI1, and at most one more page of the shard that held the newest.
    expect(queries.every((c) => typeof c.input.Limit === 'number')).toBe(true);
    expect(queries.reduce((n, c) => n + (c.input.Limit as number), 0)).toBeLessThanOrEqual(4 * 26 + 52);

    sent.length = 0;
    const next = await m.query.requestLogWindow(
      service.workspaceId,
      {},
      { offset: 0, count: 25, maxExamined: 50_000, countAll: false, after: window.next },
    );
    expect(idsOf(next.records)).toEqual(idsOf([...logs].sort(newestFirst).slice(25, 50)));
  });

  it('resumes after the last log examined when the budget runs out before the page fills', async () => {
    const found: number[] = [];
    let after: Parameters<typeof m.query.requestLogWindow>[2]['after'];
    let windows = 0;
    do {
      const window = await m.query.requestLogWindow(
        service.workspaceId,
        { filter_group: eu },
        { offset: 0, count: 10, maxExamined: 20, countAll: false, after },
      );
      found.push(...idsOf(window.records));
      if (window.next && !window.more) expect(window.complete).toBe(false);
      after = window.next;
      windows++;
    } while (after && windows < 100);
    expect(found).toEqual(expected((r) => r.tags.includes('eu')));
  });
});

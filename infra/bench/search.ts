import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { type BenchRow, countDynamoCalls, countDynamoItemsRead, fmt } from './support.ts';

/**
 * Request-log queries over 50,000 logs of ~2 KB in the local emulators (env set by the local runtime):
 * wall time, peak RSS of this process (dynalite runs in its own) and DynamoDB calls, for the ways the
 * from-filter-params job reads (time order streams; another order keeps entries and fetches again; named
 * ids) and for a search page.
 */
const LOGS = 50_000;
const CAP = 50_000;
const TARGET_RSS_MB = 512;
const BASE = Date.UTC(2024, 0, 1);
const MB = 1024 * 1024;

function record(workspaceId: number, id: number, i: number): RequestLogRecord {
  const start = BASE + i * 1000;
  const text = `Request ${i}: summarise the ticket. ${'The quick brown fox jumps over the lazy dog. '.repeat(20)}`;
  return {
    id,
    workspace_id: workspaceId,
    provider: 'openai',
    model: i % 2 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
    api_type: null,
    function_name: '',
    input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text }] }] },
    parameters: { temperature: 0.2 },
    tags: i % 3 === 0 ? ['prod'] : ['dev'],
    metadata: { user: `u-${i % 100}`, env: i % 2 === 0 ? 'prod' : 'staging' },
    prompt_id: null,
    prompt_name: null,
    prompt_version_number: null,
    prompt_input_variables: {},
    input_tokens: (i * 37) % 4000,
    output_tokens: (i * 53) % 800,
    price: ((i * 13) % 1000) / 10_000,
    score: 0,
    scores: { default: 0 },
    status: i % 20 === 0 ? 'ERROR' : 'SUCCESS',
    error_type: null,
    error_message: null,
    request_start_time: start,
    request_end_time: start + 500 + (i % 1500),
    created_at: start,
  };
}

/** Wall time and peaks of RSS (the target) and of the V8 heap (what the code itself holds), sampled every 10 ms. */
async function measure<T>(work: () => Promise<T>) {
  const peak = { rss: 0, heap: 0 };
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peak.rss = Math.max(peak.rss, rss);
    peak.heap = Math.max(peak.heap, heapUsed);
  };
  sample();
  const sampler = setInterval(sample, 10);
  const started = performance.now();
  try {
    const result = await work();
    sample();
    return {
      result,
      seconds: (performance.now() - started) / 1000,
      rssMb: peak.rss / MB,
      heapMb: peak.heap / MB,
    };
  } finally {
    clearInterval(sampler);
  }
}

export async function benchSearch(): Promise<BenchRow[]> {
  const { ensureWorkspace } = await import('#shared/auth/api-keys.ts');
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { nextId } = await import('#shared/platform/ids.ts');
  const { putRequestLog } = await import('#shared/request-logs/repository.ts');
  const { matchingRequestLogs } = await import('#shared/request-logs/query.ts');
  const { searchRequestLogs } = await import('#shared/request-logs/search.ts');
  type Query = Parameters<typeof matchingRequestLogs>[1];

  const { workspaceId } = await ensureWorkspace('bench-search');
  const ids: number[] = [];
  for (let i = 0; i < LOGS; i++) ids.push(await nextId('request_log'));
  for (let i = 0; i < LOGS; i += 50) {
    await Promise.all(ids.slice(i, i + 50).map((id, j) => putRequestLog(record(workspaceId, id, i + j))));
  }

  const calls = countDynamoCalls(documentClient());
  const rows: BenchRow[] = [];
  const job = async (label: string, query: Query) => {
    calls.reset();
    const { result, seconds, rssMb, heapMb } = await measure(async () => {
      let count = 0;
      for await (const batch of matchingRequestLogs(workspaceId, query, CAP)) count += batch.length;
      return count;
    });
    rows.push({
      name: `request-log query, ${label}: ${fmt(result, 0)} logs, ${fmt(calls.total(), 0)} DynamoDB calls`,
      value: `${fmt(seconds)} s, peak RSS ${fmt(rssMb, 0)} MB (heap ${fmt(heapMb, 0)} MB)`,
      target: `< ${TARGET_RSS_MB} MB RSS`,
    });
  };
  await job('50,000 matches in time order (streamed)', {});
  await job('50,000 matches by cost (entries, then fetched by id)', { sort_by: 'cost', sort_order: 'desc' });
  await job('50,000 named ids by time', { request_log_ids: ids });
  await job('tag AND metadata over 50,000 (1/6 match)', {
    filter_group: {
      filters: [
        { field: 'tags', operator: 'contains', value: 'prod' },
        { field: 'metadata', operator: 'key_equals', nested_key: 'env', value: 'prod' },
      ],
    },
  });

  const page = async (label: string, body: Query) => {
    calls.reset();
    const { result, seconds } = await measure(() =>
      searchRequestLogs(workspaceId, { ...body, page: 2, per_page: 25 }),
    );
    rows.push({
      name: `search, ${label}: total ${fmt(result.total ?? 0, 0)}, ${fmt(calls.total(), 0)} DynamoDB calls`,
      value: `${fmt(seconds * 1000, 0)} ms`,
      target: 'bounded by time range',
    });
  };
  const hour = {
    from: new Date(BASE + 10_000_000).toISOString(),
    to: new Date(BASE + 13_600_000).toISOString(),
  };
  await page('one hour by cost', {
    filter_group: {
      filters: [{ field: 'request_start_time', operator: 'between', value: [hour.from, hour.to] }],
    },
    sort_by: 'cost',
  });
  await page('ERROR status (GSI3)', {
    filter_group: { filters: [{ field: 'status', operator: 'is', value: 'ERROR' }] },
  });
  await page('whole workspace, q free text (50,000 examined)', { q: 'request 4999' });

  // The dashboard's table: pages of 25 over the last day, by page number (each page counts every
  // match) and by cursor with include_total: false (each page reads about a page).
  const itemsRead = countDynamoItemsRead(documentClient());
  const lastDay = {
    field: 'request_start_time' as const,
    operator: 'between' as const,
    value: [new Date(BASE).toISOString(), new Date(BASE + 86_400_000).toISOString()],
  };
  const tables: [string, Query['filter_group']][] = [
    ['last day', { filters: [lastDay] }],
    [
      'last day, ERROR (GSI3, 1 in 20)',
      { filters: [lastDay, { field: 'status', operator: 'is', value: 'ERROR' }] },
    ],
    [
      'last day, tag prod (1 in 3)',
      { filters: [lastDay, { field: 'tags', operator: 'contains', value: 'prod' }] },
    ],
  ];
  for (const [label, filterGroup] of tables) {
    const read = async (body: Parameters<typeof searchRequestLogs>[1]) => {
      calls.reset();
      itemsRead.reset();
      const started = performance.now();
      const result = await searchRequestLogs(workspaceId, body);
      return { result, ms: performance.now() - started, calls: calls.total(), items: itemsRead.items };
    };
    const byNumber = [];
    for (const pageNumber of [1, 2, 10]) {
      byNumber.push({
        pageNumber,
        ...(await read({ filter_group: filterGroup, page: pageNumber, per_page: 25 })),
      });
    }
    const byCursor = [];
    let cursor: string | null = null;
    for (let pageNumber = 1; pageNumber <= 10; pageNumber++) {
      const measured = await read({ filter_group: filterGroup, per_page: 25, cursor, include_total: false });
      cursor = measured.result.next_cursor;
      if ([1, 2, 10].includes(pageNumber)) byCursor.push({ pageNumber, ...measured });
    }
    for (const [mode, measured] of [
      ['page numbers', byNumber],
      ['cursor, include_total false', byCursor],
    ] as const) {
      rows.push({
        name: `search table page of 25, ${label}, ${mode}: items read (DynamoDB calls) for pages 1 / 2 / 10`,
        value: measured.map((m) => `${fmt(m.items, 0)} (${m.calls})`).join(' / '),
        target: mode === 'page numbers' ? 'counts every match' : 'about a page, any page',
      });
    }
  }
  return rows;
}

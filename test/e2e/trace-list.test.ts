import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceListSchema } from '#shared/traces/list.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * GET /api/public/v2/traces through the local gateway: traces stored by /spans-bulk and by OTLP
 * /v1/traces listed newest first with their counts, kept right when spans arrive out of order, in
 * several batches and twice; cursor pages, a time window, workspace isolation and bad parameters.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** 2023-11-14T22:13:20Z; every trace of this file starts a few seconds after it. */
const BASE_NS = 1_700_000_000_000_000_000n;
const at = (seconds: number) => (BASE_NS + BigInt(Math.round(seconds * 1000)) * 1_000_000n).toString();
const iso = (seconds: number) => new Date(Number(BigInt(at(seconds)) / 1_000_000n)).toISOString();

function sdkSpan(
  traceId: string,
  spanId: string,
  parentId: string | null,
  [start, end]: [number, number],
  overrides: Record<string, unknown> = {},
) {
  return {
    name: `span ${spanId}`,
    context: { trace_id: traceId, span_id: spanId, trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: parentId,
    start_time: at(start),
    end_time: at(end),
    status: { status_code: 'StatusCode.OK' },
    attributes: {},
    ...overrides,
  };
}

async function postSpans(spans: unknown[]) {
  const answer = await service.call('POST', '/spans-bulk', { body: { spans } });
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
}

async function list(query: Record<string, string | number> = {}, key?: string) {
  const answer = await service.call('GET', '/api/public/v2/traces', { query, ...(key ? { key } : {}) });
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
  expect(traceListSchema.safeParse(answer.body).error).toBeUndefined();
  return answer.body as { traces: Record<string, unknown>[]; next_cursor: string | null };
}

const sdkTrace = hex(16);
const otlpTrace = hex(16);
const earlyTrace = hex(16);

describe('GET /api/public/v2/traces', () => {
  beforeAll(async () => {
    // The SDK's trace (starts at +3 s): the child first, then a second batch with the root (its log,
    // price 0.25) and a failing child; then the first batch again, as a retry.
    const root = hex(8);
    const firstBatch = [sdkSpan(sdkTrace, hex(8), root, [3.5, 4])];
    await postSpans(firstBatch);
    await postSpans([
      sdkSpan(sdkTrace, root, null, [3, 5], {
        name: 'answer question',
        log_request: logRequestBody({ price: 0.25 }),
      }),
      sdkSpan(sdkTrace, hex(8), root, [4, 4.5], { status: { status_code: 'StatusCode.ERROR' } }),
    ]);
    await postSpans(firstBatch);

    // An OTLP trace (starts at +2 s) in two exports, the second sent twice.
    const otlpRoot = hex(8);
    const otlpSpan = (
      spanId: string,
      parent: string | null,
      name: string,
      [start, end]: [number, number],
    ) => ({
      traceId: otlpTrace,
      spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name,
      kind: 1,
      startTimeUnixNano: at(start),
      endTimeUnixNano: at(end),
      attributes: [],
      status: { code: 1 },
    });
    const exportOf = (spans: object[]) => ({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'manual' }, spans }] }],
    });
    const second = exportOf([otlpSpan(hex(8), otlpRoot, 'retrieve', [2.1, 2.2])]);
    for (const body of [exportOf([otlpSpan(otlpRoot, null, 'checkout', [2, 2.5])]), second, second]) {
      const answer = await service.call('POST', '/v1/traces', { body });
      expect(answer.status).toBe(200);
    }

    // A trace that starts at +1 s, without a root yet.
    await postSpans([sdkSpan(earlyTrace, hex(8), hex(8), [1, 1.25])]);
  });

  it('lists traces from /spans-bulk and OTLP newest first, each counted once with its root, errors and logs', async () => {
    const { traces, next_cursor } = await list();

    expect(traces.map((trace) => trace.trace_id)).toEqual([sdkTrace, otlpTrace, earlyTrace]);
    expect(traces[0]).toEqual({
      trace_id: sdkTrace,
      name: 'answer question',
      start_time: iso(3),
      end_time: iso(5),
      duration_ms: 2000,
      span_count: 3,
      has_error: true,
      error_count: 1,
      request_log_count: 1,
      cost: 0.25,
    });
    expect(traces[1]).toMatchObject({
      name: 'checkout',
      span_count: 2,
      has_error: false,
      request_log_count: 0,
      cost: 0,
      duration_ms: 500,
    });
    expect(traces[2]).toMatchObject({ name: null, span_count: 1, start_time: iso(1), duration_ms: 250 });
    expect(next_cursor).toBeNull();
  });

  it('moves a trace to its new start when an earlier span arrives', async () => {
    const trace = hex(16);
    await postSpans([sdkSpan(trace, hex(8), null, [10, 11], { name: 'late root' })]);
    expect((await list()).traces[0]).toMatchObject({ trace_id: trace, start_time: iso(10) });

    // A root that started before the others: the trace now starts at +0.5 s, the oldest of all.
    await postSpans([sdkSpan(trace, hex(8), null, [0.5, 12], { name: 'real root' })]);

    const { traces } = await list();
    expect(traces.at(-1)).toMatchObject({
      trace_id: trace,
      name: 'real root',
      start_time: iso(0.5),
      end_time: iso(12),
      span_count: 2,
    });
    expect(traces.filter((listed) => listed.trace_id === trace)).toHaveLength(1);
  });

  it('pages with next_cursor, without gaps or repeats, and within a time window', async () => {
    const all = (await list()).traces.map((trace) => trace.trace_id);
    const paged: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list({ per_page: 2, ...(cursor ? { cursor } : {}) });
      expect(page.traces.length).toBeLessThanOrEqual(2);
      paged.push(...page.traces.map((trace) => trace.trace_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThan(2);

    const window = await list({ from: iso(2), to: iso(3) });
    expect(window.traces.map((trace) => trace.trace_id)).toEqual([sdkTrace, otlpTrace]);
    const fromOnly = await list({ from: String(Number(BASE_NS / 1_000_000n) + 2500) });
    expect(fromOnly.traces.map((trace) => trace.trace_id)).toEqual([sdkTrace]);
  });

  it("never shows another workspace's traces, and reads with a read-only key", async () => {
    const otherKey = await service.otherWorkspaceKey('trace-list-other');
    expect((await list({}, otherKey)).traces).toEqual([]);

    const readOnlyKey = await service.keyWithPermissions({ request_logs: 'read' });
    expect((await list({}, readOnlyKey)).traces.length).toBeGreaterThan(2);
  });

  it.each([
    ['per_page', { per_page: 0 }],
    ['per_page', { per_page: 101 }],
    ['cursor', { cursor: 'not-a-cursor' }],
    ['from', { from: 'yesterday' }],
    ['to', { from: iso(3), to: iso(2) }],
  ])('refuses a bad %s with a 422 naming it', async (name, query) => {
    const answer = await service.rejected('GET', '/api/public/v2/traces', { query });
    expect(answer.status).toBe(422);
    expect(answer.body.success).toBe(false);
    expect(answer.body.detail[0].loc).toEqual(['query', name]);
  });
});

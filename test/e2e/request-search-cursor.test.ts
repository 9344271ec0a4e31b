import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Cursor paging of POST /api/public/v2/requests/search through the local gateway: `next_cursor` on every
 * page, `cursor` continuing exactly after the last row, `include_total: false`, and the 400s of a cursor
 * that is not this search's. Answers are checked against the declared schema by the test service.
 */
const SEARCH = '/api/public/v2/requests/search';
const COUNT = 23;
const BASE = Date.UTC(2024, 4, 1, 9, 0, 0);
const MINUTE = 60_000;

let service: TestService;
const ids: number[] = [];
const iso = (ms: number) => new Date(ms).toISOString();

// Pairs of logs share a start time, so page boundaries fall between ties (ordered by id).
const startOf = (i: number) => BASE + Math.floor(i / 2) * MINUTE;

async function log(i: number, start = startOf(i)) {
  const created = await service.call('POST', '/log-request', {
    body: logRequestBody({
      request_start_time: iso(start),
      request_end_time: iso(start + 100),
      tags: i % 3 === 0 ? ['prod'] : ['dev'],
      price: ((i * 7) % 10) / 100,
      status: i % 4 === 0 ? 'ERROR' : 'SUCCESS',
      ...(i % 4 === 0 ? { error_type: 'PROVIDER_ERROR', error_message: 'boom' } : {}),
    }),
  });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

beforeAll(async () => {
  service = await startTestService();
  for (let i = 0; i < COUNT; i++) ids.push(await log(i));
});
afterAll(() => service?.stop());

const inRange = {
  field: 'request_start_time',
  operator: 'between',
  value: [iso(BASE), iso(BASE + 60 * MINUTE)],
};
const search = (body: Record<string, unknown>, key?: string) => service.call('POST', SEARCH, { body, key });

/** Every page of a search by cursor: the ids in order, and each page's answer. */
async function walk(body: Record<string, unknown>) {
  const pages = [];
  let cursor: string | null = null;
  do {
    const { status, body: page } = await search({ ...body, cursor });
    expect(status).toBe(200);
    pages.push(page);
    cursor = page.next_cursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return { ids: pages.flatMap((page) => page.items.map((item: { id: number }) => item.id)), pages };
}

/** Every page of a search by page number. */
async function byNumber(body: Record<string, unknown>) {
  const found: number[] = [];
  for (let page = 1; ; page++) {
    const answer = await search({ ...body, page });
    found.push(...answer.body.items.map((item: { id: number }) => item.id));
    if (!answer.body.has_next) return found;
  }
}

describe('cursor paging', () => {
  it('walks every log newest first, each page after the last row of the one before, without counting', async () => {
    const { ids: walked, pages } = await walk({
      filter_group: { filters: [inRange] },
      per_page: 5,
      include_total: false,
    });
    expect(walked).toEqual([...ids].reverse());
    expect(pages).toHaveLength(5);
    expect(pages.map((page) => page.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages[1]).toMatchObject({
      per_page: 5,
      total: null,
      pages: null,
      has_next: true,
      has_prev: true,
      next_num: 3,
      prev_num: 1,
      next_cursor: expect.any(String),
      incomplete_results: false,
    });
    expect(pages.at(-1)).toMatchObject({ has_next: false, next_num: null, next_cursor: null });
    expect(pages.at(-1).items).toHaveLength(3);
  });

  it('answers the same pages as page numbers for filters and for an order that is not time', async () => {
    for (const body of [
      { filter_group: { filters: [{ field: 'status', operator: 'is', value: 'ERROR' }] }, per_page: 2 },
      { filter_group: { filters: [{ field: 'tags', operator: 'contains', value: 'prod' }] }, per_page: 3 },
      { sort_by: 'cost', sort_order: 'desc', per_page: 4 },
      { sort_by: 'request_start_time', sort_order: 'asc', per_page: 4, filter_group: { filters: [inRange] } },
    ]) {
      const expected = await byNumber(body);
      expect(expected.length).toBeGreaterThan(2);
      expect((await walk({ ...body, include_total: false })).ids).toEqual(expected);
      expect((await walk(body)).ids).toEqual(expected);
    }
  });

  it('keeps counting by default: a cursor page still has the total', async () => {
    const first = await search({ per_page: 10, filter_group: { filters: [inRange] } });
    expect(first.body).toMatchObject({ page: 1, total: COUNT, pages: 3, next_cursor: expect.any(String) });
    const second = await search({
      per_page: 10,
      filter_group: { filters: [inRange] },
      cursor: first.body.next_cursor,
    });
    expect(second.body).toMatchObject({ page: 2, total: COUNT, pages: 3, has_next: true });
    expect(second.body.items.map((item: { id: number }) => item.id)).toEqual(
      [...ids].reverse().slice(10, 20),
    );
  });

  it('is stable under logs added meanwhile: newer logs never shift the next page', async () => {
    const filter_group = {
      filters: [
        { field: 'request_start_time', operator: 'between', value: [iso(BASE), iso(BASE + 90 * MINUTE)] },
      ],
    };
    const first = await search({ filter_group, per_page: 6, include_total: false });
    const expectedNext = [...ids].reverse().slice(6, 12);
    // Two newer logs, and one at the very start time of the first page's last row (a tie with a higher id).
    const lastShown = first.body.items.at(-1);
    await log(100, BASE + 80 * MINUTE);
    await log(101, BASE + 81 * MINUTE);
    await log(102, Date.parse(lastShown.request_start_time));
    const next = await search({
      filter_group,
      per_page: 6,
      include_total: false,
      cursor: first.body.next_cursor,
    });
    expect(next.status).toBe(200);
    expect(next.body.items.map((item: { id: number }) => item.id)).toEqual(expectedNext);
  });

  it('pages by number without a count too', async () => {
    const counted = await search({ page: 2, per_page: 7, filter_group: { filters: [inRange] } });
    const uncounted = await search({
      page: 2,
      per_page: 7,
      filter_group: { filters: [inRange] },
      include_total: false,
    });
    expect(uncounted.body.items).toEqual(counted.body.items);
    expect(uncounted.body).toMatchObject({ page: 2, total: null, pages: null, has_next: true, next_num: 3 });
  });
});

describe('a cursor that is not this search’s', () => {
  let cursor: string;
  const body = { filter_group: { filters: [inRange] }, per_page: 5, include_total: false };
  beforeAll(async () => {
    cursor = (await search(body)).body.next_cursor;
  });

  it.each([
    ['garbage', () => 'not-a-cursor'],
    ['a signature cut short', () => cursor.slice(0, -3)],
    ['a payload altered', () => `${cursor[0] === 'e' ? 'f' : 'e'}${cursor.slice(1)}`],
    [
      'a payload made by hand',
      () => `${Buffer.from('{"p":1,"a":[0,0,1],"s":"x"}').toString('base64url')}.AAAA`,
    ],
  ])('refuses %s with a 400 invalid_cursor', async (_, make) => {
    const answer = await service.rejected('POST', SEARCH, { body: { ...body, cursor: make() } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: 'invalid_cursor',
      message: expect.stringMatching(/not one this search returned/),
    });
  });

  it('refuses a cursor of another filter, sort or page size with a 400 saying so', async () => {
    for (const other of [
      { ...body, filter_group: { filters: [{ field: 'tags', operator: 'contains', value: 'prod' }] } },
      { ...body, sort_by: 'cost' },
      { ...body, per_page: 6 },
      { ...body, q: 'refund' },
    ]) {
      const answer = await service.rejected('POST', SEARCH, { body: { ...other, cursor } });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        error: 'invalid_cursor',
        message: expect.stringMatching(/another search/),
      });
    }
    // The same filter with its keys in another order is the same search.
    const reordered = {
      filters: [{ value: inRange.value, operator: 'between', field: 'request_start_time' }],
    };
    expect((await search({ ...body, filter_group: reordered, cursor })).status).toBe(200);
  });

  it("refuses another workspace's cursor with a 400", async () => {
    const otherKey = await service.otherWorkspaceKey('cursor-other');
    const answer = await service.rejected('POST', SEARCH, { body: { ...body, cursor }, key: otherKey });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_cursor');
  });

  it('refuses page with cursor with a 422', async () => {
    const answer = await service.rejected('POST', SEARCH, { body: { ...body, cursor, page: 2 } });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'page']);
  });
});

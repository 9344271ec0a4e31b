import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/** POST /api/public/v2/requests/search through the local gateway, over logs made with POST /log-request. */
const SEARCH = '/api/public/v2/requests/search';
const COUNT = 40;
const BASE = Date.UTC(2024, 2, 1, 9, 0, 0);
const HOUR = 3_600_000;

let service: TestService;
let otherKey: string;
let readOnlyKey: string;
const ids: number[] = [];

const iso = (ms: number) => new Date(ms).toISOString();

function body(i: number) {
  const start = BASE + i * HOUR;
  return logRequestBody({
    model: i % 2 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
    input: {
      type: 'chat',
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: `Ticket ${i}: ${i % 4 === 0 ? 'refund please' : 'hello'}` }],
        },
      ],
    },
    request_start_time: iso(start),
    request_end_time: iso(start + 100 * (i % 9)),
    tags: i % 3 === 0 ? ['prod'] : ['dev'],
    metadata: { customer: `c-${i % 5}` },
    price: (i % 10) / 100,
    input_tokens: 10 * i,
    status: i % 6 === 0 ? 'ERROR' : 'SUCCESS',
    ...(i % 6 === 0 ? { error_type: 'PROVIDER_ERROR', error_message: 'boom' } : {}),
  });
}

beforeAll(async () => {
  service = await startTestService();
  for (let i = 0; i < COUNT; i++) {
    const created = await service.call('POST', '/log-request', { body: body(i) });
    expect(created.status).toBe(201);
    ids.push(created.body.id);
  }
  otherKey = await service.otherWorkspaceKey('search-e2e-other');
  readOnlyKey = await service.keyWithPermissions({ request_logs: 'read' });
});
afterAll(() => service?.stop());

const newestFirst = (keep: (i: number) => boolean) =>
  ids
    .map((id, i) => ({ id, i }))
    .filter(({ i }) => keep(i))
    .reverse()
    .map(({ id }) => id);

describe('POST /api/public/v2/requests/search', () => {
  it('lists the newest 10 by default, page-style', async () => {
    const { status, body: page } = await service.call('POST', SEARCH, { body: {} });
    expect(status).toBe(200);
    expect(page).toMatchObject({
      success: true,
      page: 1,
      per_page: 10,
      total: COUNT,
      pages: 4,
      has_next: true,
      has_prev: false,
      next_num: 2,
      prev_num: null,
    });
    expect(page.items.map((item: { id: number }) => item.id)).toEqual(newestFirst(() => true).slice(0, 10));
  });

  it('answers the item fields of the reference', async () => {
    const { body: page } = await service.call('POST', SEARCH, {
      body: { filter_group: { filters: [{ field: 'pl_id', operator: 'eq', value: ids[7] }] } },
    });
    expect(page.items).toEqual([
      {
        id: ids[7],
        engine: 'gpt-4o-mini',
        provider_type: 'openai',
        input_tokens: 70,
        output_tokens: 0,
        price: 0.07,
        usage: {
          input_tokens: 70,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        },
        cost: {
          total: 0.07,
          input: 0,
          cached_input: 0,
          cache_write: 0,
          output: 0,
          reasoning: 0,
          source: 'client',
          priced_as: null,
        },
        request_start_time: iso(BASE + 7 * HOUR),
        request_end_time: iso(BASE + 7 * HOUR + 700),
        latency: 0.7,
        tags_array: ['dev'],
        metadata: [{ customer: 'c-2' }],
        scores: [{ name: 'default', score: 0 }],
        score: 0,
        prompt_name: null,
        prompt_id: null,
        prompt_version_number: null,
        status: 'SUCCESS',
        error_type: null,
        error_message: null,
        group_id: null,
      },
    ]);
  });

  it('combines a filter group, q, a sort and pagination', async () => {
    const filter_group = {
      logic: 'AND',
      filters: [
        { field: 'request_start_time', operator: 'after', value: iso(BASE + 3 * HOUR) },
        {
          logic: 'OR',
          filters: [
            { field: 'tags', operator: 'contains', value: 'prod' },
            { field: 'metadata', operator: 'key_equals', nested_key: 'customer', value: 'c-0' },
          ],
        },
      ],
    };
    // after 03:00:00 (second precision) means from 03:00:01; i % 3 === 0 or i % 5 === 0; text "refund"
    const keep = (i: number) => i > 3 && (i % 3 === 0 || i % 5 === 0) && i % 4 === 0;
    const price = (i: number) => (i % 10) / 100;
    const want = ids
      .map((id, i) => ({ id, i }))
      .filter(({ i }) => keep(i))
      .sort((a, b) => price(a.i) - price(b.i) || a.i - b.i)
      .map(({ id }) => id);
    expect(want.length).toBeGreaterThan(2);
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(want.length / 2); page++) {
      const { status, body: answer } = await service.call('POST', SEARCH, {
        body: { filter_group, q: 'REFUND', sort_by: 'cost', sort_order: 'asc', page, per_page: 2 },
      });
      expect(status).toBe(200);
      expect(answer.total).toBe(want.length);
      expect(answer.has_next).toBe(page < answer.pages);
      seen.push(...answer.items.map((item: { id: number }) => item.id));
    }
    expect(seen).toEqual(want);
  });

  it('searches errors by status and sorts by input tokens', async () => {
    const { body: answer } = await service.call('POST', SEARCH, {
      body: {
        filter_group: { filters: [{ field: 'status', operator: 'is', value: 'ERROR' }] },
        sort_by: 'input_tokens',
        sort_order: 'desc',
        per_page: 25,
      },
    });
    expect(answer.items.map((item: { id: number }) => item.id)).toEqual(newestFirst((i) => i % 6 === 0));
    expect(answer.items.every((item: { status: string }) => item.status === 'ERROR')).toBe(true);
  });

  it('shows a workspace only its own logs', async () => {
    const { status, body: answer } = await service.call('POST', SEARCH, { body: {}, key: otherKey });
    expect(status).toBe(200);
    expect(answer).toMatchObject({ total: 0, items: [], pages: 0, has_next: false });
  });

  it('needs only read permission', async () => {
    const { status } = await service.call('POST', SEARCH, { body: {}, key: readOnlyKey });
    expect(status).toBe(200);
  });

  it.each([
    [
      'an unknown field',
      { filter_group: { filters: [{ field: 'colour', operator: 'is', value: 'red' }] } },
      ['body', 'filter_group', 'filters', 0, 'field'],
    ],
    [
      'an operator the field does not take',
      {
        filter_group: {
          filters: [{ logic: 'OR', filters: [{ field: 'tags', operator: 'gte', value: 3 }] }],
        },
      },
      ['body', 'filter_group', 'filters', 0, 'filters', 0, 'operator'],
    ],
    [
      'a malformed value',
      {
        filter_group: {
          filters: [{ field: 'request_start_time', operator: 'after', value: 'last tuesday' }],
        },
      },
      ['body', 'filter_group', 'filters', 0, 'value'],
    ],
    ['a group that is not one', { filter_group: { filters: 'all' } }, ['body', 'filter_group', 'filters']],
    ['per_page 26', { per_page: 26 }, ['body', 'per_page']],
    ['page 0', { page: 0 }, ['body', 'page']],
    ['an unknown sort', { sort_by: 'price' }, ['body', 'sort_by']],
  ])('answers 422 for %s, naming it', async (_, request, loc) => {
    const { status, body: error } = await service.call('POST', SEARCH, { body: request });
    expect(status).toBe(422);
    expect(error).toMatchObject({ success: false, error: 'validation_error' });
    expect(error.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
  });

  it.each([
    [
      'a filter without field',
      { filters: [{ operator: 'is', value: 'gpt-4o' }] },
      'Invalid body.filter_group.filters.0.field: Field required',
      [{ loc: ['body', 'filter_group', 'filters', 0, 'field'], msg: 'Field required', type: 'invalid_type' }],
    ],
    [
      'an object value',
      { filters: [{ field: 'metadata', operator: 'key_equals', nested_key: 'a', value: { b: 1 } }] },
      'Invalid body.filter_group.filters.0.value: must be a string, number, boolean or null, or an array of them',
      [expect.objectContaining({ loc: ['body', 'filter_group', 'filters', 0, 'value'] })],
    ],
    [
      'a nested group with a bad logic and a filter without operator',
      { filters: [{ logic: 'XOR', filters: [{ field: 'cost' }] }] },
      'Invalid body.filter_group.filters.0.logic: Invalid option: expected one of "AND"|"OR"',
      [
        expect.objectContaining({ loc: ['body', 'filter_group', 'filters', 0, 'logic'] }),
        {
          loc: ['body', 'filter_group', 'filters', 0, 'filters', 0, 'operator'],
          msg: 'Field required',
          type: 'invalid_type',
        },
      ],
    ],
    [
      "'in' with a string",
      { filters: [{ field: 'engine', operator: 'in', value: 'gpt-4o' }] },
      "Invalid body.filter_group.filters.0.value: 'in' on 'engine' needs an array of strings",
      [expect.objectContaining({ loc: ['body', 'filter_group', 'filters', 0, 'value'] })],
    ],
  ])('names the property at fault for %s', async (_, filter_group, message, detail) => {
    const { status, body: error } = await service.call('POST', SEARCH, { body: { filter_group } });

    expect(status).toBe(422);
    expect(error.message).toBe(message);
    expect(error.detail).toEqual(detail);
  });
});

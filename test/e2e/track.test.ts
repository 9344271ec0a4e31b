import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/** POST /rest/track-score and /rest/track-metadata through the local gateway, read back by GET and search. */
let service: TestService;
let otherKey: string;
let readOnlyKey: string;

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('track-e2e-other');
  readOnlyKey = await service.keyWithPermissions({ request_logs: 'read' });
});
afterAll(() => service?.stop());

async function logged(overrides: Record<string, unknown> = {}): Promise<number> {
  const created = await service.call('POST', '/log-request', { body: logRequestBody(overrides) });
  expect(created.status).toBe(201);
  return created.body.id;
}

const detail = async (id: number) => (await service.call('GET', `/api/public/v2/requests/${id}`)).body;

async function searched(id: number) {
  const { body } = await service.call('POST', '/api/public/v2/requests/search', {
    body: { filter_group: { filters: [{ field: 'pl_id', operator: 'eq', value: id }] } },
  });
  expect(body.items).toHaveLength(1);
  return body.items[0];
}

describe('POST /rest/track-score', () => {
  it('sets the default score and named scores, shown by GET and search', async () => {
    const id = await logged({ score: 10 });
    const first = await service.call('POST', '/rest/track-score', { body: { request_id: id, score: 90 } });
    expect(first).toMatchObject({
      status: 200,
      body: { success: true, message: 'Score tracked successfully' },
    });
    const named = await service.call('POST', '/rest/track-score', {
      body: { request_id: id, score: 0, name: 'accuracy' },
    });
    expect(named.status).toBe(200);

    expect(await detail(id)).toMatchObject({ score: 90, scores: { default: 90, accuracy: 0 } });
    expect(await searched(id)).toMatchObject({
      score: 90,
      scores: [
        { name: 'default', score: 90 },
        { name: 'accuracy', score: 0 },
      ],
    });
  });

  it('takes a null name as the default score', async () => {
    const id = await logged({ tags: ['scored'] });
    await service.call('POST', '/rest/track-score', { body: { request_id: id, score: 77, name: null } });
    expect((await detail(id)).score).toBe(77);
  });

  it('answers 404 for a log of another workspace or an unknown id', async () => {
    const id = await logged();
    const foreign = await service.call('POST', '/rest/track-score', {
      body: { request_id: id, score: 5 },
      key: otherKey,
    });
    expect(foreign).toMatchObject({ status: 404, body: { success: false, error: 'not_found' } });
    const unknown = await service.call('POST', '/rest/track-score', {
      body: { request_id: 999_999_999, score: 5 },
    });
    expect(unknown.status).toBe(404);
    expect((await detail(id)).scores).toEqual({ default: 0 });
  });

  it('needs edit permission', async () => {
    const id = await logged();
    const { status } = await service.call('POST', '/rest/track-score', {
      body: { request_id: id, score: 5 },
      key: readOnlyKey,
    });
    expect(status).toBe(403);
  });

  it.each([
    [{ score: 101 }, 'score'],
    [{ score: -1 }, 'score'],
    [{ score: 50.5 }, 'score'],
    [{ score: '50' }, 'score'],
    [{ score: undefined }, 'score'],
    [{ name: '' }, 'name'],
    [{ request_id: 0 }, 'request_id'],
    [{ request_id: 'abc' }, 'request_id'],
    [{ request_id: undefined }, 'request_id'],
  ])('answers 422 for %j', async (override, field) => {
    const id = await logged();
    const { status, body } = await service.call('POST', '/rest/track-score', {
      body: { request_id: id, score: 50, ...override },
    });
    expect(status).toBe(422);
    expect(body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(['body', field]);
    expect((await detail(id)).scores).toEqual({ default: 0 });
  });
});

describe('POST /rest/track-metadata', () => {
  it('merges metadata, shown by GET and search, and takes the id as a string too', async () => {
    const id = await logged({ metadata: { env: 'prod', user: 'u-1' } });
    const first = await service.call('POST', '/rest/track-metadata', {
      body: { request_id: id, metadata: { user: 'u-2', session: 's-9' } },
    });
    expect(first).toMatchObject({
      status: 200,
      body: { success: true, message: 'Metadata tracked successfully' },
    });
    const again = await service.call('POST', '/rest/track-metadata', {
      body: { request_id: String(id), metadata: { plan: 'pro' } },
    });
    expect(again.status).toBe(200);

    expect((await detail(id)).metadata).toEqual({ env: 'prod', user: 'u-2', session: 's-9', plan: 'pro' });
    expect((await searched(id)).metadata).toEqual([
      { env: 'prod' },
      { user: 'u-2' },
      { session: 's-9' },
      { plan: 'pro' },
    ]);
    const { body } = await service.call('POST', '/api/public/v2/requests/search', {
      body: {
        filter_group: {
          filters: [{ field: 'metadata', operator: 'key_equals', nested_key: 'plan', value: 'pro' }],
        },
      },
    });
    expect(body.items.map((item: { id: number }) => item.id)).toEqual([id]);
  });

  it('answers 404 for a log of another workspace', async () => {
    const id = await logged();
    const { status } = await service.call('POST', '/rest/track-metadata', {
      body: { request_id: id, metadata: { a: 'b' } },
      key: otherKey,
    });
    expect(status).toBe(404);
    expect((await detail(id)).metadata).toEqual({});
  });

  it.each([
    [{ metadata: { n: 5 } }, ['body', 'metadata', 'n']],
    [{ metadata: { ['k'.repeat(1025)]: 'v' } }, ['body', 'metadata']],
    [{ metadata: 'x' }, ['body', 'metadata']],
    [{ metadata: undefined }, ['body', 'metadata']],
    [{ request_id: -3 }, ['body', 'request_id']],
  ])('answers 422 for %j', async (override, loc) => {
    const id = await logged();
    const { status, body } = await service.call('POST', '/rest/track-metadata', {
      body: { request_id: id, metadata: { a: 'b' }, ...override },
    });
    expect(status).toBe(422);
    expect(body.detail.map((d: { loc: unknown[] }) => d.loc.slice(0, loc.length))).toContainEqual(loc);
  });
});

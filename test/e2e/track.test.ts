import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';

/**
 * The header-key tracking routes (POST /rest/track-score, /rest/track-metadata, /rest/track-prompt,
 * /rest/track-group) through the local gateway, read back by GET and search. Their body-key forms, as
 * the SDK calls them, are in sdk-track.test.ts.
 */
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

describe('POST /rest/track-prompt', () => {
  it('links a log to the version named, with the key in the header, and relinks to another', async () => {
    const name = uniqueName('rest-track-prompt');
    const first = await publish(service, name, undefined, { release_labels: ['prod'] });
    const second = await publish(service, name);
    const id = await logged();
    const linked = await service.call('POST', '/rest/track-prompt', {
      body: { request_id: id, prompt_name: name, prompt_input_variables: { q: 'a' }, label: 'prod' },
    });
    expect(linked).toMatchObject({
      status: 200,
      body: { success: true, message: 'Prompt tracked successfully' },
    });
    expect(await detail(id)).toMatchObject({
      prompt_id: first.id,
      prompt_version_number: first.version_number,
      prompt_input_variables: { q: 'a' },
    });
    const relinked = await service.call('POST', '/rest/track-prompt', {
      body: { request_id: id, prompt_name: name, prompt_input_variables: { q: 'b' } },
    });
    expect(relinked.status).toBe(200);
    expect(await detail(id)).toMatchObject({
      prompt_version_number: second.version_number,
      prompt_input_variables: { q: 'b' },
    });
    const { body } = await service.call('POST', '/api/public/v2/requests/search', {
      body: { filter_group: { filters: [{ field: 'prompt_id', operator: 'eq', value: first.id }] } },
    });
    expect(body.items.map((item: { id: number }) => item.id)).toContain(id);
  });

  it('refuses an unknown version (404), another workspace (404), a read-only key (403), no key (401), and a body key alone (401)', async () => {
    const name = uniqueName('rest-track-prompt-refused');
    await publish(service, name);
    const id = await logged();
    const body = { request_id: id, prompt_name: name, prompt_input_variables: {} };
    const refusals: [Record<string, unknown>, string | null, number][] = [
      [{ ...body, version: 9 }, service.apiKey, 404],
      [body, otherKey, 404],
      [body, readOnlyKey, 403],
      [body, null, 401],
      // The header-key route reads no key from the body.
      [{ ...body, api_key: service.apiKey }, null, 401],
      [{ ...body, version: 1, label: 'prod' }, service.apiKey, 422],
    ];
    for (const [sent, key, status] of refusals) {
      const answer = await service.rejected('POST', '/rest/track-prompt', { body: sent, key });
      expect(answer.status, JSON.stringify(sent)).toBe(status);
    }
    expect((await detail(id)).prompt_id).toBeNull();
  });
});

describe('POST /rest/track-group', () => {
  it('attaches a log to a group with the key in the header; the group finds it', async () => {
    const group = (await service.call('POST', '/create-group', { body: {} })).body.id as number;
    const id = await logged();
    const tracked = await service.call('POST', '/rest/track-group', {
      body: { request_id: id, group_id: group },
    });
    expect(tracked).toMatchObject({
      status: 200,
      body: { success: true, message: 'Group tracked successfully' },
    });
    expect((await detail(id)).group_id).toBe(group);
    const { body } = await service.call('POST', '/api/public/v2/requests/search', {
      body: { filter_group: { filters: [{ field: 'group_id', operator: 'eq', value: group }] } },
    });
    expect(body.items.map((item: { id: number }) => item.id)).toEqual([id]);
  });

  it('refuses an unknown group (404), a log of another workspace (404), a read-only key (403) and no key (401)', async () => {
    const group = (await service.call('POST', '/create-group', { body: {} })).body.id as number;
    const id = await logged();
    const refusals: [Record<string, unknown>, string | null, number][] = [
      [{ request_id: id, group_id: group + 1000 }, service.apiKey, 404],
      [{ request_id: id, group_id: group }, otherKey, 404],
      [{ request_id: id, group_id: group }, readOnlyKey, 403],
      [{ request_id: id, group_id: group }, null, 401],
      [{ request_id: id, group_id: 'g' }, service.apiKey, 422],
    ];
    for (const [sent, key, status] of refusals) {
      const answer = await service.rejected('POST', '/rest/track-group', { body: sent, key });
      expect(answer.status, JSON.stringify(sent)).toBe(status);
    }
    expect((await detail(id)).group_id).toBeNull();
  });
});

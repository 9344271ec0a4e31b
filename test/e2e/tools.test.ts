import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';

/**
 * The tool registry through the local gateway: create, versions (dense under races), reads by id, name,
 * version and label, the list with its filters, external ids, permissions and workspace isolation.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/tool-registry';
const definition = (name = 'get_weather', extra: Record<string, unknown> = {}) => ({
  name,
  description: 'The weather at a place',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
    additionalProperties: false,
  },
  ...extra,
});
const create = async (body: Record<string, unknown>, key?: string) => {
  const answer = await service.call('POST', BASE, { body, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
};
const createNamed = (name: string, key?: string, extra: Record<string, unknown> = {}) =>
  create({ name, tool_definition: definition(), ...extra }, key);
const get = (identifier: string | number, query: Record<string, string | number> = {}, key?: string) =>
  service.call('GET', `${BASE}/${encodeURIComponent(String(identifier))}`, { query, key });
const addVersion = (identifier: string | number, body: Record<string, unknown>, key?: string) =>
  service.call('POST', `${BASE}/${encodeURIComponent(String(identifier))}/versions`, { body, key });

describe('POST /api/public/v2/tool-registry', () => {
  it('creates a tool at version 1 (201) with its external ids', async () => {
    const name = uniqueName('tool');
    const mapping = { source: 'crm', external_id: uniqueName('T') };
    const folderId = await createFolder(service);
    const created = await create({
      name,
      tool_definition: definition(),
      description: 'Weather lookups',
      folder_id: folderId,
      commit_message: 'first',
      external_ids: [mapping],
    });
    expect(created).toEqual({
      success: true,
      tool_registry: {
        id: expect.any(Number),
        name,
        description: 'Weather lookups',
        workspace_id: service.workspaceId,
        folder_id: folderId,
        latest_version_number: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        external_ids: [mapping],
      },
      version: {
        id: expect.any(Number),
        tool_id: created.tool_registry.id,
        version_number: 1,
        tool_definition: definition(),
        commit_message: 'first',
        release_labels: [],
        execution: null,
        created_at: expect.any(String),
      },
      external_ids: [mapping],
    });
    const read = await get(created.tool_registry.id);
    expect(read.body.tool_registry).toMatchObject({ name, external_ids: [mapping], folder_id: folderId });
  });

  it('answers 409 for a name the workspace has, and writes nothing', async () => {
    const name = uniqueName('dup');
    await createNamed(name);
    const again = await service.rejected('POST', BASE, { body: { name, tool_definition: definition() } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: 'conflict' });
  });

  it('answers 409 for an external id of another tool, and writes nothing', async () => {
    const mapping = { source: 'crm', external_id: uniqueName('taken') };
    await createNamed(uniqueName('owner'), undefined, { external_ids: [mapping] });
    const name = uniqueName('second');
    const taken = await service.rejected('POST', BASE, {
      body: { name, tool_definition: definition(), external_ids: [mapping] },
    });
    expect(taken.status).toBe(409);
    expect((await get(name)).status).toBe(404);
  });

  it('makes one tool of concurrent creates of one name; the others answer 409', async () => {
    const name = uniqueName('race');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        service.call('POST', BASE, { body: { name, tool_definition: definition() } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const read = await get(name);
    expect(read.body.tool_registry.latest_version_number).toBe(1);
  });

  const params = (parameters: Record<string, unknown>) => ({ ...definition(), parameters });
  it.each([
    ['no tool_definition', { name: 'x' }],
    ['no name', { tool_definition: definition() }],
    ['a function name with spaces', { name: 'x', tool_definition: definition('get weather') }],
    ['a function name over 64 characters', { name: 'x', tool_definition: definition('f'.repeat(65)) }],
    ['parameters of type array', { name: 'x', tool_definition: params({ type: 'array' }) }],
    [
      'properties that are not objects',
      { name: 'x', tool_definition: params({ type: 'object', properties: { a: 1 } }) },
    ],
    [
      'required naming no property',
      { name: 'x', tool_definition: params({ type: 'object', properties: {}, required: ['ghost'] }) },
    ],
    [
      'more than 200 properties',
      {
        name: 'x',
        tool_definition: params({
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 201 }, (_, i) => [`p${i}`, { type: 'string' }]),
          ),
        }),
      },
    ],
    [
      'a definition over 64 KB',
      { name: 'x', tool_definition: definition('big', { description: 'x'.repeat(4000) }), pad: true },
    ],
    ['an unknown definition field', { name: 'x', tool_definition: { ...definition(), extra: 1 } }],
    ['a folder_id of 0', { name: 'x', tool_definition: definition(), folder_id: 0 }],
    [
      'an execution body in another language',
      {
        name: 'x',
        tool_definition: definition(),
        execution: { type: 'code', language: 'ruby', code: '1' },
      },
    ],
  ])('rejects %s with a 422 and writes nothing', async (_, body) => {
    const { pad, ...sent } = body as Record<string, unknown>;
    if (pad) {
      const big = sent.tool_definition as {
        parameters: { properties: Record<string, unknown>; required: string[] };
      };
      big.parameters.required = [];
      big.parameters.properties = Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'string', description: 'y'.repeat(700) }]),
      );
    }
    if ('name' in sent) sent.name = uniqueName('bad');
    const answer = await service.rejected('POST', BASE, { body: sent });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.error).toBe('validation_error');
    if (pad) expect(answer.body.message).toContain('64000 bytes');
  });

  it('needs edit permission on tools', async () => {
    const key = await service.keyWithPermissions({ tools: 'read' });
    const answer = await service.rejected('POST', BASE, {
      body: { name: uniqueName('ro'), tool_definition: definition() },
      key,
    });
    expect(answer.status).toBe(403);
    expect((await service.call('GET', BASE, { key })).status).toBe(200);
    const noTools = await service.keyWithPermissions({ prompts: 'edit' });
    expect((await service.call('GET', BASE, { key: noTools })).status).toBe(403);
  });
});

describe('versions and reads', () => {
  it('adds versions by id and by name, moves labels, and reads by version, label and latest', async () => {
    const name = uniqueName('ver');
    const { tool_registry: tool } = await createNamed(name);
    const second = await addVersion(tool.id, {
      tool_definition: definition('get_weather_v2'),
      commit_message: 'two',
      release_labels: ['prod', 'staging'],
    });
    expect(second.status).toBe(201);
    expect(second.body).toEqual({
      success: true,
      version: {
        id: expect.any(Number),
        tool_id: tool.id,
        version_number: 2,
        tool_definition: definition('get_weather_v2'),
        commit_message: 'two',
        release_labels: ['prod', 'staging'],
        execution: null,
        created_at: expect.any(String),
      },
    });
    const third = await addVersion(name, { tool_definition: definition('v3'), release_labels: ['prod'] });
    expect(third.body.version).toMatchObject({ version_number: 3, release_labels: ['prod'] });

    const latest = await get(name);
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({
      success: true,
      tool_registry: {
        id: tool.id,
        name,
        description: null,
        workspace_id: service.workspaceId,
        folder_id: null,
        latest_version_number: 3,
        created_at: tool.created_at,
        updated_at: expect.any(String),
        external_ids: [],
        labels: [
          expect.objectContaining({
            name: 'prod',
            version_number: 3,
            tool_version_id: third.body.version.id,
          }),
          expect.objectContaining({
            name: 'staging',
            version_number: 2,
            tool_version_id: second.body.version.id,
          }),
        ],
        version: expect.objectContaining({ version_number: 3, release_labels: ['prod'] }),
        tool_definition: definition('v3'),
      },
    });
    expect(latest.body.tool_registry.updated_at >= tool.updated_at).toBe(true);
    const byLabel = await get(tool.id, { label: 'staging' });
    expect(byLabel.body.tool_registry).toMatchObject({
      latest_version_number: 3,
      tool_definition: definition('get_weather_v2'),
      version: { version_number: 2, release_labels: ['staging'] },
    });
    expect((await get(name, { version: 1 })).body.tool_registry.tool_definition).toEqual(definition());
  });

  it('answers 404 for an unknown tool, version or label, and 422 for version and label together', async () => {
    const name = uniqueName('missing');
    await createNamed(name);
    expect((await get(uniqueName('none'))).status).toBe(404);
    expect((await get(987_654_321)).status).toBe(404);
    expect((await get(name, { version: 9 })).status).toBe(404);
    expect((await get(name, { label: 'nope' })).status).toBe(404);
    expect((await get(name, { version: 1, label: 'prod' })).status).toBe(422);
    const unknown = await service.rejected('POST', `${BASE}/${uniqueName('none')}/versions`, {
      body: { tool_definition: definition() },
    });
    expect(unknown.status).toBe(404);
    const bad = await service.rejected('POST', `${BASE}/${name}/versions`, {
      body: { tool_definition: { name: 'x', parameters: { type: 'string' } } },
    });
    expect(bad.status).toBe(422);
  });

  it('keeps versions dense under 20 concurrent publishes (1..21)', async () => {
    const name = uniqueName('dense');
    const { tool_registry: tool } = await createNamed(name);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        addVersion(tool.id, { tool_definition: definition(`f${i}`), release_labels: ['prod'] }),
      ),
    );
    expect(answers.every((answer) => answer.status === 201)).toBe(true);
    const numbers = answers.map((answer) => answer.body.version.version_number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const read = await get(name);
    expect(read.body.tool_registry.latest_version_number).toBe(21);
    expect(read.body.tool_registry.labels).toEqual([
      expect.objectContaining({ name: 'prod', version_number: 21 }),
    ]);
    for (const number of [1, 11, 21]) {
      expect((await get(name, { version: number })).body.tool_registry.version.version_number).toBe(number);
    }
  });
});

describe('GET /api/public/v2/tool-registry', () => {
  let key: string;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    key = await service.otherWorkspaceKey(uniqueName('tool-list'), { email: 'Lister@Example.com' });
    for (const name of ['charlie', 'alpha', 'bravo']) {
      ids[name] = (await createNamed(name, key, { description: `${name} tool` })).tool_registry.id;
    }
    // A new version makes alpha the most recently updated.
    const answer = await addVersion('alpha', { tool_definition: definition('alpha2') }, key);
    expect(answer.status).toBe(201);
  });
  const list = (query: Record<string, string | number> = {}) => service.call('GET', BASE, { query, key });

  it('lists the most recently updated first, with the entry fields', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, page: 1, per_page: 100, total: 3, has_next: false });
    expect(answer.body.tool_registries.map((tool: { name: string }) => tool.name)).toEqual([
      'alpha',
      'bravo',
      'charlie',
    ]);
    expect(answer.body.tool_registries[0]).toEqual({
      id: ids.alpha,
      name: 'alpha',
      description: 'alpha tool',
      workspace_id: expect.any(Number),
      folder_id: null,
      latest_version_number: 2,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      external_ids: [],
    });
  });

  it('sorts, pages and filters by times, external id and creator', async () => {
    const byName = await list({ sort_by: 'name', sort_order: 'asc' });
    expect(byName.body.tool_registries.map((tool: { name: string }) => tool.name)).toEqual([
      'alpha',
      'bravo',
      'charlie',
    ]);
    const byCreated = await list({ sort_by: 'created_at' });
    expect(byCreated.body.tool_registries.map((tool: { name: string }) => tool.name)).toEqual([
      'bravo',
      'alpha',
      'charlie',
    ]);
    const paged = await list({ sort_by: 'id', sort_order: 'asc', per_page: 1, page: 2 });
    expect(paged.body).toMatchObject({ total: 3, has_next: true, has_prev: true });
    expect(paged.body.tool_registries.map((tool: { id: number }) => tool.id)).toEqual([ids.alpha]);
    const firstAt = (await get(ids.charlie!, {}, key)).body.tool_registry.created_at;
    const bounded = await list({ created_after: firstAt, created_before: firstAt });
    expect(bounded.body.tool_registries.map((tool: { id: number }) => tool.id)).toEqual([ids.charlie]);
    expect((await list({ updated_after: '2999-01-01T00:00:00Z' })).body.total).toBe(0);
    const mapping = { source: 'list', external_id: uniqueName('x') };
    await service.call('POST', `${BASE}/${ids.bravo}/external-ids`, { body: mapping, key });
    const byMapping = await list({ external_source: mapping.source, external_id: mapping.external_id });
    expect(byMapping.body.tool_registries).toEqual([
      expect.objectContaining({ id: ids.bravo, external_ids: [mapping] }),
    ]);
    expect((await list({ created_by_email: 'lister@example.COM' })).body.total).toBe(3);
    expect((await list({ created_by_email: 'someone@example.com' })).body.total).toBe(0);
  });

  it.each([
    ['external_source alone', { external_source: 's' }],
    ['external_id alone', { external_id: 'x' }],
    ['sort_order alone', { sort_order: 'asc' }],
    ['an unknown sort_by', { sort_by: 'size' }],
    ['a bad date', { created_after: 'yesterday' }],
    ['per_page 101', { per_page: 101 }],
  ])('rejects %s with a 422', async (_, query) => {
    expect((await list(query)).status).toBe(422);
  });
});

describe('tool external ids', () => {
  const path = (id: number) => `${BASE}/${id}/external-ids`;
  it('attaches (idempotent), lists and detaches; 409 for another tool, 404 once detached', async () => {
    const one = (await createNamed(uniqueName('xid'))).tool_registry;
    const two = (await createNamed(uniqueName('xid'))).tool_registry;
    const mapping = { source: 'jira', external_id: uniqueName('TL') };
    expect((await service.call('POST', path(one.id), { body: mapping })).status).toBe(201);
    const again = await service.call('POST', path(one.id), { body: mapping });
    expect(again).toMatchObject({ status: 201, body: { success: true, external_id: mapping } });
    expect((await service.call('GET', path(one.id))).body).toEqual({
      success: true,
      external_ids: [mapping],
    });
    const taken = await service.rejected('POST', path(two.id), { body: mapping });
    expect(taken.status).toBe(409);
    expect((await get(one.id)).body.tool_registry.external_ids).toEqual([mapping]);
    const del = `${path(one.id)}/${mapping.source}/${mapping.external_id}`;
    expect((await service.call('DELETE', del)).body).toEqual({ success: true });
    expect((await service.call('DELETE', del)).status).toBe(404);
    expect((await service.call('GET', path(one.id))).body.external_ids).toEqual([]);
    expect((await service.call('POST', path(two.id), { body: mapping })).status).toBe(201);
  });

  it('answers 404 for an unknown tool id, 422 for a bad mapping or a name in place of the id', async () => {
    expect((await service.call('GET', path(987_654_321))).status).toBe(404);
    const { tool_registry: tool } = await createNamed(uniqueName('bad-xid'));
    expect((await service.rejected('POST', path(tool.id), { body: { source: '' } })).status).toBe(422);
    expect((await service.call('GET', `${BASE}/${tool.name}/external-ids`)).status).toBe(422);
  });
});

describe('workspace isolation', () => {
  it('answers 404 to another workspace for every id and name of this one', async () => {
    const name = uniqueName('mine');
    const { tool_registry: mine } = await createNamed(name);
    await addVersion(name, { tool_definition: definition(), release_labels: ['prod'] });
    const mapping = { source: 'iso', external_id: uniqueName('x') };
    await service.call('POST', `${BASE}/${mine.id}/external-ids`, { body: mapping });
    const key = await service.otherWorkspaceKey(uniqueName('intruder'));
    const id = mine.id;
    for (const identifier of [id, name]) {
      expect((await get(identifier, {}, key)).status).toBe(404);
      expect((await get(identifier, { label: 'prod' }, key)).status).toBe(404);
      expect((await addVersion(identifier, { tool_definition: definition() }, key)).status).toBe(404);
    }
    expect((await service.call('GET', `${BASE}/${id}/external-ids`, { key })).status).toBe(404);
    expect((await service.call('POST', `${BASE}/${id}/external-ids`, { body: mapping, key })).status).toBe(
      404,
    );
    expect(
      (
        await service.call('DELETE', `${BASE}/${id}/external-ids/${mapping.source}/${mapping.external_id}`, {
          key,
        })
      ).status,
    ).toBe(404);
    const listed = await service.call('GET', BASE, { key });
    expect(listed.body.tool_registries.map((tool: { id: number }) => tool.id)).not.toContain(id);
    const byMapping = await service.call('GET', BASE, {
      key,
      query: { external_source: mapping.source, external_id: mapping.external_id },
    });
    expect(byMapping.body.total).toBe(0);
    // A tool of the same name there is its own.
    const theirs = await createNamed(name, key);
    expect(theirs.tool_registry.id).not.toBe(id);
    expect((await get(id)).body.tool_registry.latest_version_number).toBe(2);
  });
});

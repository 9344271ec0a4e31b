import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { edgeFrom, twoNodeBody, variableNode, workflowBody } from '#test/support/workflows.ts';

/**
 * Workflow definitions through the local gateway: create and version, patch, read (as the SDKs do),
 * labels, the list with its parameters, external ids, and workspace isolation of every id.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const create = async (body: Record<string, unknown>, key?: string) => {
  const answer = await service.call('POST', '/rest/workflows', { body, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
};
const get = (idOrName: string | number, query: Record<string, string | number> = {}, key?: string) =>
  service.call('GET', `/workflows/${encodeURIComponent(String(idOrName))}`, { query, key });
const patch = (idOrName: string | number, body: Record<string, unknown>, key?: string) =>
  service.call('PATCH', `/rest/workflows/${encodeURIComponent(String(idOrName))}`, { body, key });

describe('POST /rest/workflows', () => {
  it('creates a workflow (201) in the reference shape, then versions it by id and by name', async () => {
    const name = uniqueName('wf');
    const body = twoNodeBody(name);
    const first = await create({ ...body, release_labels: ['prod'], commit_message: 'first' });
    expect(first).toEqual({
      success: true,
      workflow_id: expect.any(Number),
      workflow_name: name,
      workflow_version_id: expect.any(Number),
      version_number: 1,
      base_version: null,
      release_labels: ['prod'],
      nodes: [
        { id: expect.any(String), name: 'a', node_type: 'VARIABLE', is_output_node: false },
        { id: expect.any(String), name: 'compare', node_type: 'COMPARE', is_output_node: true },
      ],
      required_input_variables: { expected: 'string' },
      external_ids: [],
    });
    const { name: _, ...version } = body;
    const byId = await create({ ...version, workflow_id: first.workflow_id });
    expect(byId).toMatchObject({ workflow_id: first.workflow_id, version_number: 2, release_labels: [] });
    const byName = await create({ ...version, workflow_name: name, release_labels: ['prod'] });
    expect(byName).toMatchObject({ workflow_id: first.workflow_id, version_number: 3 });
    expect((await get(name, { label: 'prod' })).body.version_number).toBe(3);
  });

  it('creates a workflow under a generated name when none is given', async () => {
    const { name: _, ...body } = workflowBody('unused');
    const created = await create(body);
    expect(created.workflow_name).toMatch(/^workflow-/);
    expect((await get(created.workflow_id)).body.workflow_name).toBe(created.workflow_name);
  });

  it('answers 404 for a version of an unknown workflow, and 422 for two targets at once', async () => {
    const { name: _, ...body } = workflowBody('unused');
    expect(
      (await service.rejected('POST', '/rest/workflows', { body: { ...body, workflow_id: 987_654_321 } }))
        .status,
    ).toBe(404);
    expect(
      (
        await service.rejected('POST', '/rest/workflows', {
          body: { ...body, workflow_name: uniqueName('none') },
        })
      ).status,
    ).toBe(404);
    const both = await service.rejected('POST', '/rest/workflows', {
      body: { ...body, name: uniqueName('a'), workflow_name: 'b' },
    });
    expect(both.status).toBe(422);
  });

  const node = (name: string, extra: Record<string, unknown> = {}) =>
    variableNode(name, 'x', { is_output_node: false, ...extra });
  it.each([
    ['duplicate node names', { nodes: [node('a', { is_output_node: true }), node('a')] }],
    [
      'a dependency that is neither a node nor an input',
      { nodes: [node('a', { is_output_node: true, dependencies: ['ghost'] })] },
    ],
    [
      'a cycle',
      {
        nodes: [node('a', { dependencies: ['b'] }), node('b', { dependencies: ['a'], is_output_node: true })],
      },
    ],
    ['no output node', { nodes: [node('a')] }],
    [
      'an edge naming an unknown node',
      { nodes: [node('a', { is_output_node: true })], edges: [edgeFrom('a', 'ghost')] },
    ],
    [
      'a known node type with an invalid configuration',
      { nodes: [{ ...node('a', { is_output_node: true }), configuration: { value: 42 } }] },
    ],
    [
      'more than 200 nodes',
      { nodes: Array.from({ length: 201 }, (_, i) => node(`n${i}`, { is_output_node: i === 0 })) },
    ],
    ['a node without is_output_node', { nodes: [{ name: 'a', node_type: 'VARIABLE', configuration: {} }] }],
  ])('rejects %s with a 422 and writes nothing', async (_, graph) => {
    const answer = await service.rejected('POST', '/rest/workflows', {
      body: { name: uniqueName('bad'), ...graph },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('validation_error');
  });

  it('accepts an unknown node type (it fails at run time)', async () => {
    const created = await create({
      name: uniqueName('mcp'),
      nodes: [{ name: 'tool', node_type: 'MCP', configuration: { anything: true }, is_output_node: true }],
    });
    expect(created.nodes[0]).toMatchObject({ node_type: 'MCP' });
  });

  it('publishes a version near the item limit with 100 labels, and reads it by each', async () => {
    const name = uniqueName('wide');
    const nodes = Array.from({ length: 3 }, (_, i) => variableNode(`n${i}`, 'x'.repeat(100_000)));
    const labels = Array.from({ length: 100 }, (_, i) => `l${i}`);
    const created = await create({ name, nodes, release_labels: labels });
    expect(created.release_labels).toHaveLength(100);
    for (const label of ['l0', 'l99']) {
      const read = await get(name, { label });
      expect(read.status).toBe(200);
      expect(read.body.workflow_version_id).toBe(created.workflow_version_id);
    }
  });

  it('answers 413 for a version too large for one item, writing nothing', async () => {
    const big = 'x'.repeat(100_000);
    const nodes = Array.from({ length: 4 }, (_, i) => variableNode(`n${i}`, big));
    const answer = await service.rejected('POST', '/rest/workflows', {
      body: { name: uniqueName('big'), nodes },
    });
    expect(answer.status).toBe(413);
  });

  it('claims external ids with the create: 409 when another workflow holds one, writing nothing', async () => {
    const mapping = { source: 'git', external_id: uniqueName('wf') };
    const owner = await create(workflowBody(uniqueName('owner'), { external_ids: [mapping] }));
    expect(owner.external_ids).toEqual([mapping]);
    const answer = await service.rejected('POST', '/rest/workflows', {
      body: workflowBody(uniqueName('other'), { external_ids: [mapping] }),
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('external_id_conflict');
    // A new version of the owner may name its own mapping again.
    const again = await create(
      workflowBody('', { name: null, workflow_id: owner.workflow_id, external_ids: [mapping] }),
    );
    expect(again.external_ids).toEqual([mapping]);
  });

  it('refuses more than 100 external ids in one publish (422), writing nothing', async () => {
    const externalIds = Array.from({ length: 101 }, (_, index) => ({
      source: 'bulk',
      external_id: `${index}`,
    }));
    const answer = await service.rejected('POST', '/rest/workflows', {
      body: workflowBody(uniqueName('bulk'), { external_ids: externalIds }),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'external_ids']);
  });

  it('refuses a key that may only read workflows (403)', async () => {
    const key = await service.keyWithPermissions({ workflows: 'read' });
    const answer = await service.call('POST', '/rest/workflows', {
      body: workflowBody(uniqueName('ro')),
      key,
    });
    expect(answer.status).toBe(403);
  });
});

describe('GET /workflows/{workflow_id_or_name}', () => {
  it('answers the version with nodes and edges, workflow_id and workflow.id (the Python SDK)', async () => {
    const name = uniqueName('read');
    const created = await create({ ...twoNodeBody(name), release_labels: ['prod'], commit_message: 'c1' });
    const answer = await get(name);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      workflow_id: created.workflow_id,
      workflow_name: name,
      workflow: {
        id: created.workflow_id,
        name,
        workspace_id: service.workspaceId,
        latest_version_number: 1,
      },
      version: 1,
      workflow_version_id: created.workflow_version_id,
      commit_message: 'c1',
      required_input_variables: { expected: 'string' },
      release_labels: ['prod'],
      created_at: expect.any(String),
    });
    expect(answer.body.workflow.id).toBe(created.workflow_id);
    expect(answer.body.nodes[1]).toEqual({
      id: created.nodes[1].id,
      workflow_version_id: created.workflow_version_id,
      name: 'compare',
      node_type: 'COMPARE',
      configuration: { sources: ['a', 'expected'], comparison_type: { type: 'STRING' } },
      dependencies: ['a', 'expected'],
      is_output_node: true,
    });
    expect(answer.body.edges).toEqual([
      { id: expect.any(String), ...(twoNodeBody(name).edges as object[])[0] },
    ]);
  });

  it('picks a version by number or label, by name or id; 404 for what is not there, 422 for both', async () => {
    const name = uniqueName('pick');
    const one = await create(workflowBody(name, { release_labels: ['prod'] }));
    await create(workflowBody(name, { release_labels: ['staging'] }));
    expect((await get(one.workflow_id)).body.version).toBe(2);
    expect((await get(name, { version: 1 })).body).toMatchObject({ version: 1, release_labels: ['prod'] });
    expect((await get(one.workflow_id, { label: 'staging' })).body).toMatchObject({
      version: 2,
      workflow: { latest_version_number: 2 },
    });
    expect((await get(name, { version: 3 })).status).toBe(404);
    expect((await get(name, { label: 'nope' })).status).toBe(404);
    expect((await get(uniqueName('nothing'))).status).toBe(404);
    expect((await get(987_654_321)).status).toBe(404);
    const both = await get(name, { version: 1, label: 'prod' });
    expect(both.status).toBe(422);
    expect((await get(name, { version: 0 })).status).toBe(422);
  });

  it('lists the labels with their ids and versions', async () => {
    const name = uniqueName('labels');
    const one = await create(workflowBody(name, { release_labels: ['prod', 'beta'] }));
    const two = await create(workflowBody(name, { release_labels: ['beta'] }));
    const answer = await service.call('GET', `/workflows/${one.workflow_id}/labels`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      release_labels: [
        {
          release_label: 'beta',
          release_label_id: expect.any(Number),
          workflow_version_id: two.workflow_version_id,
          workflow_version_number: 2,
        },
        {
          release_label: 'prod',
          release_label_id: expect.any(Number),
          workflow_version_id: one.workflow_version_id,
          workflow_version_number: 1,
        },
      ],
    });
    expect((await service.call('GET', `/workflows/${uniqueName('none')}/labels`)).status).toBe(404);
  });
});

describe('PATCH /rest/workflows/{workflow_id_or_name}', () => {
  it('merges configurations, replaces dependencies, adds and removes nodes with their edges', async () => {
    const name = uniqueName('patch');
    const base = twoNodeBody(name);
    const created = await create({
      ...base,
      nodes: [...(base.nodes as object[]), variableNode('b', 'two', { is_output_node: false })],
      edges: [edgeFrom('a', 'compare'), edgeFrom('b', 'compare')],
    });
    const answer = await patch(created.workflow_id, {
      base_version: 1,
      commit_message: 'tweak',
      nodes: {
        compare: { configuration: { comparison_type: { type: 'JSON' } } },
        b: null,
        c: { node_type: 'VARIABLE', configuration: { value: { type: 'string', value: 'new' } } },
        a: { dependencies: ['expected'] },
      },
      release_labels: ['prod'],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({ version_number: 2, base_version: 1, release_labels: ['prod'] });
    const read = (await get(name)).body;
    expect(read).toMatchObject({
      version: 2,
      commit_message: 'tweak',
      required_input_variables: { expected: 'string' },
    });
    const nodes = Object.fromEntries(read.nodes.map((n: { name: string }) => [n.name, n]));
    expect(Object.keys(nodes)).toEqual(['a', 'compare', 'c']);
    expect(nodes.compare.configuration).toEqual({
      sources: ['a', 'expected'],
      comparison_type: { type: 'JSON' },
    });
    expect(nodes.a.dependencies).toEqual(['expected']);
    expect(nodes.c).toMatchObject({ is_output_node: false, dependencies: [] });
    expect(read.edges.map((e: { source_node_name: string }) => e.source_node_name)).toEqual(['a']);
    expect((await get(name, { label: 'prod' })).body.version).toBe(2);
  });

  it('replaces edges and input variables when given', async () => {
    const name = uniqueName('replace');
    await create(twoNodeBody(name));
    const answer = await patch(name, {
      edges: [],
      nodes: { compare: { dependencies: ['a', 'other'], configuration: { sources: ['a', 'other'] } } },
      required_input_variables: { other: 'string' },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const read = (await get(name)).body;
    expect(read.edges).toEqual([]);
    expect(read.required_input_variables).toEqual({ other: 'string' });
  });

  it('patches an older base_version into a new latest, 404 for an unknown version or workflow, 422 for bad changes', async () => {
    const name = uniqueName('stale');
    await create(workflowBody(name));
    await create(workflowBody(name));
    const older = await patch(name, { base_version: 1, commit_message: 'from one' });
    expect(older.status).toBe(201);
    expect(older.body).toMatchObject({ version_number: 3, base_version: 1 });
    const missing = await service.rejected('PATCH', `/rest/workflows/${name}`, { body: { base_version: 9 } });
    expect(missing.status).toBe(404);
    expect(
      (await service.rejected('PATCH', `/rest/workflows/${uniqueName('none')}`, { body: {} })).status,
    ).toBe(404);
    const noType = await service.rejected('PATCH', `/rest/workflows/${name}`, {
      body: { nodes: { fresh: { configuration: {} } } },
    });
    expect(noType.status).toBe(422);
    const unknown = await service.rejected('PATCH', `/rest/workflows/${name}`, {
      body: { nodes: { ghost: null } },
    });
    expect(unknown.status).toBe(422);
    // Removing the only output node leaves a graph without one.
    const noOutput = await service.rejected('PATCH', `/rest/workflows/${name}`, {
      body: { nodes: { greeting: null } },
    });
    expect(noOutput.status).toBe(422);
    expect((await patch(name, { base_version: 3 })).status).toBe(201);
  });

  it('refuses a __proto__ key (422) rather than dropping it from a version answered 201', async () => {
    const name = uniqueName('proto');
    await create(workflowBody(name));
    // JSON.parse makes `__proto__` an own key, as the service parses it.
    const own = (json: string) => JSON.parse(json) as Record<string, unknown>;
    const refused = [
      {
        method: 'PATCH',
        path: `/rest/workflows/${name}`,
        body: own(
          '{"nodes": {"__proto__": {"node_type": "VARIABLE", "configuration": {"value": {"type": "string", "value": "x"}}, "is_output_node": true}}}',
        ),
      },
      {
        method: 'PATCH',
        path: `/rest/workflows/${name}`,
        body: own('{"nodes": {"greeting": {"configuration": {"__proto__": {"value": "x"}}}}}'),
      },
      {
        method: 'PATCH',
        path: `/rest/workflows/${name}`,
        body: own('{"required_input_variables": {"__proto__": "string"}}'),
      },
      {
        method: 'POST',
        path: '/rest/workflows',
        body: { ...workflowBody(name), required_input_variables: own('{"__proto__": "string"}') },
      },
    ];
    for (const { method, path, body } of refused) {
      const answer = await service.rejected(method, path, { body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.message).toContain('__proto__');
    }
    expect((await get(name)).body.version_number).toBe(1);
  });
});

describe('GET /workflows', () => {
  let key: string;
  const names: string[] = [];
  const ids: number[] = [];
  beforeAll(async () => {
    key = await service.otherWorkspaceKey(uniqueName('wf-list'));
    for (const name of ['charlie', 'alpha', 'bravo']) {
      const created = await create(workflowBody(name, { release_labels: ['prod'] }), key);
      names.push(name);
      ids.push(created.workflow_id);
    }
    await create(workflowBody('alpha'), key);
  });
  const list = (query: Record<string, string | number> = {}) =>
    service.call('GET', '/workflows', { query, key });

  it('lists with the defaults (page 1, 30 per page, newest first) and every pagination field', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      items: expect.any(Array),
      page: 1,
      per_page: 30,
      pages: 1,
      total: 3,
      has_next: false,
      has_prev: false,
      next_num: null,
      prev_num: null,
    });
    expect(answer.body.items.map((item: { name: string }) => item.name)).toEqual([
      'bravo',
      'alpha',
      'charlie',
    ]);
    expect(answer.body.items[1]).toMatchObject({
      id: ids[1],
      workspace_id: expect.any(Number),
      name: 'alpha',
      is_deleted: false,
      release_labels: ['prod'],
      user_id: expect.any(Number),
      latest_version_number: 2,
      external_ids: [],
    });
  });

  it('pages and sorts', async () => {
    const page = await list({ per_page: 1, page: 2, sort_by: 'name', sort_order: 'asc' });
    expect(page.body).toMatchObject({
      page: 2,
      per_page: 1,
      pages: 3,
      total: 3,
      has_next: true,
      has_prev: true,
      next_num: 3,
      prev_num: 1,
    });
    expect(page.body.items.map((item: { name: string }) => item.name)).toEqual(['bravo']);
    const byId = await list({ sort_by: 'id', sort_order: 'asc' });
    expect(byId.body.items.map((item: { id: number }) => item.id)).toEqual(ids);
    const past = await list({ page: 9 });
    expect(past.body).toMatchObject({ items: [], page: 9, has_prev: true, prev_num: 8 });
  });

  it('filters by creation and update times (inclusive), external id and creator', async () => {
    const all = (await list({ sort_by: 'created_at', sort_order: 'asc' })).body.items;
    const firstAt = (await get(ids[0]!, {}, key)).body.workflow.created_at;
    const after = await list({ created_after: firstAt, created_before: firstAt });
    expect(after.body.items.map((item: { id: number }) => item.id)).toEqual([all[0].id]);
    const updated = await list({ updated_after: '2999-01-01T00:00:00Z' });
    expect(updated.body.total).toBe(0);
    const mapping = { source: 'list', external_id: uniqueName('x') };
    await service.call('POST', `/workflows/${ids[2]}/external-ids`, { body: mapping, key });
    const byMapping = await list({ external_source: mapping.source, external_id: mapping.external_id });
    expect(byMapping.body.items).toEqual([expect.objectContaining({ id: ids[2], external_ids: [mapping] })]);
    expect((await list({ created_by_email: 'someone@example.com' })).body.total).toBe(0);
  });

  it("filters by the creating user's e-mail address, ignoring case; a workflow of a user without one matches none", async () => {
    const workspace = uniqueName('wf-by-email');
    const ada = await service.otherWorkspaceKey(workspace, { email: 'Ada@Example.com' });
    const plain = await service.otherWorkspaceKey(workspace);
    const byAda = await create(workflowBody('by-ada'), ada);
    await create(workflowBody('by-plain'), plain);
    // A later version by another user leaves the creator as it was.
    await create(workflowBody('by-ada'), plain);
    const byEmail = (email: string) =>
      service.call('GET', '/workflows', { query: { created_by_email: email }, key: plain });
    const found = await byEmail('ada@example.COM');
    expect(found.status).toBe(200);
    expect(found.body.items).toEqual([
      expect.objectContaining({ id: byAda.workflow_id, name: 'by-ada', latest_version_number: 2 }),
    ]);
    expect(found.body.total).toBe(1);
    expect((await byEmail('bob@example.com')).body.total).toBe(0);
    expect((await byEmail('ada@example')).body.total).toBe(0);
    const all = await service.call('GET', '/workflows', { key: plain });
    expect(all.body.items.map((item: { name: string }) => item.name)).toEqual(['by-plain', 'by-ada']);
  });

  it.each([
    ['page 0', { page: 0 }],
    ['per_page 0', { per_page: 0 }],
    ['per_page 101', { per_page: 101 }],
    ['external_source alone', { external_source: 's' }],
    ['external_id alone', { external_id: 'x' }],
    ['sort_order alone', { sort_order: 'asc' }],
    ['an unknown sort_by', { sort_by: 'size' }],
    ['a bad date', { created_after: 'yesterday' }],
  ])('rejects %s with a 422', async (_, query) => {
    expect((await list(query)).status).toBe(422);
  });
});

describe('workflow external ids', () => {
  const path = (id: number) => `/workflows/${id}/external-ids`;
  it('attaches (idempotent), lists and detaches; 409 for another workflow, 404 once detached', async () => {
    const one = await create(workflowBody(uniqueName('xid')));
    const two = await create(workflowBody(uniqueName('xid')));
    const mapping = { source: 'jira', external_id: uniqueName('WF') };
    expect((await service.call('POST', path(one.workflow_id), { body: mapping })).status).toBe(201);
    const again = await service.call('POST', path(one.workflow_id), { body: mapping });
    expect(again).toMatchObject({ status: 201, body: { success: true, external_id: mapping } });
    expect((await service.call('GET', path(one.workflow_id))).body).toEqual({
      success: true,
      external_ids: [mapping],
    });
    const taken = await service.rejected('POST', path(two.workflow_id), { body: mapping });
    expect(taken.status).toBe(409);
    expect((await get(one.workflow_id)).body.external_ids).toEqual([mapping]);
    const del = `${path(one.workflow_id)}/${mapping.source}/${mapping.external_id}`;
    expect((await service.call('DELETE', del)).body).toEqual({ success: true });
    expect((await service.call('DELETE', del)).status).toBe(404);
    expect((await service.call('GET', path(one.workflow_id))).body.external_ids).toEqual([]);
    expect((await service.call('POST', path(two.workflow_id), { body: mapping })).status).toBe(201);
  });

  it('answers 404 for an unknown workflow id and 422 for a bad mapping', async () => {
    expect((await service.call('GET', path(987_654_321))).status).toBe(404);
    const { workflow_id } = await create(workflowBody(uniqueName('bad-xid')));
    expect((await service.call('POST', path(workflow_id), { body: { source: '' } })).status).toBe(422);
  });
});

describe('workspace isolation', () => {
  it('answers 404 to another workspace for every id and name of this one', async () => {
    const name = uniqueName('mine');
    const mine = await create(workflowBody(name, { release_labels: ['prod'] }));
    const mapping = { source: 'iso', external_id: uniqueName('x') };
    await service.call('POST', `/workflows/${mine.workflow_id}/external-ids`, { body: mapping });
    const key = await service.otherWorkspaceKey(uniqueName('intruder'));
    const id = mine.workflow_id;
    expect((await get(id, {}, key)).status).toBe(404);
    expect((await get(name, {}, key)).status).toBe(404);
    expect((await service.call('GET', `/workflows/${id}/labels`, { key })).status).toBe(404);
    expect((await service.call('GET', `/workflows/${name}/labels`, { key })).status).toBe(404);
    expect((await patch(id, {}, key)).status).toBe(404);
    expect((await patch(name, {}, key)).status).toBe(404);
    const { name: _, ...body } = workflowBody(name);
    expect(
      (await service.call('POST', '/rest/workflows', { body: { ...body, workflow_id: id }, key })).status,
    ).toBe(404);
    expect(
      (await service.call('POST', '/rest/workflows', { body: { ...body, workflow_name: name }, key })).status,
    ).toBe(404);
    expect((await service.call('GET', `/workflows/${id}/external-ids`, { key })).status).toBe(404);
    expect((await service.call('POST', `/workflows/${id}/external-ids`, { body: mapping, key })).status).toBe(
      404,
    );
    expect(
      (
        await service.call(
          'DELETE',
          `/workflows/${id}/external-ids/${mapping.source}/${mapping.external_id}`,
          { key },
        )
      ).status,
    ).toBe(404);
    const listed = await service.call('GET', '/workflows', { key, query: { per_page: 100 } });
    expect(listed.body.items.map((item: { id: number }) => item.id)).not.toContain(id);
    // A workflow of the same name there is its own.
    const theirs = await create(workflowBody(name), key);
    expect(theirs.workflow_id).not.toBe(id);
    expect(theirs.version_number).toBe(1);
    expect((await get(id)).body.version).toBe(1);
  });
});

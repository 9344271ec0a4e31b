import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, publishBody, uniqueName } from '#test/support/prompts.ts';
import { createDatasetGroup, publishedDataset, reportOver } from '#test/support/reports.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * Folders through the local gateway: the tree (create, list with paths, rename, move, resolve, delete
 * with and without cascade), external ids, moving entities of every kind (permissions, existence and
 * folder rules checked before anything moves), the folder listings, and workspace isolation.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/folders';
const ENTITIES = `${BASE}/entities`;

type Folder = {
  id: number;
  name: string;
  parent_id: number | null;
  path: { id: number; name: string }[] | null;
};

const createFolder = async (name: string, parentId?: number | null, key?: string): Promise<Folder> => {
  const answer = await service.call('POST', BASE, { body: { name, parent_id: parentId }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.folder;
};
const move = (entities: { id: number | string; type: string }[], folderId: number | null, key?: string) =>
  service.call('POST', ENTITIES, { body: { entities, folder_id: folderId }, key });
const listEntities = (query: Record<string, string | number | boolean> = {}, key?: string) =>
  service.call('GET', ENTITIES, { query, key });
const entityIds = (answer: { body: { entities: { id: number; type: string }[] } }) =>
  answer.body.entities.map((entity) => `${entity.type}:${entity.id}`).sort();

async function createTool(name = uniqueName('tool')): Promise<number> {
  const answer = await service.call('POST', '/api/public/v2/tool-registry', {
    body: {
      name,
      tool_definition: {
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: {} },
      },
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.tool_registry.id;
}

async function createWorkflow(): Promise<number> {
  const answer = await service.call('POST', '/rest/workflows', { body: workflowBody(uniqueName('wf')) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.workflow_id;
}

/** Where each kind's own read says the entity is. */
async function folderOf(type: string, id: number): Promise<number | null> {
  switch (type) {
    case 'PROMPT': {
      const answer = await service.call('GET', '/prompt-templates', { query: { per_page: 100 } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.items.find((item: { id: number }) => item.id === id).folder_id;
    }
    case 'TOOL': {
      const answer = await service.call('GET', `/api/public/v2/tool-registry/${id}`);
      return answer.body.tool_registry.folder_id;
    }
    case 'REPORT': {
      const answer = await service.call('GET', `/reports/${id}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.report.folder_id;
    }
    case 'WORKFLOW': {
      const answer = await service.call('GET', '/workflows', { query: { per_page: 100 } });
      return answer.body.items.find((item: { id: number }) => item.id === id).folder_id;
    }
    case 'DATASET': {
      const { getGroup } = await import('#shared/datasets/repository.ts');
      return (await getGroup(service.workspaceId, id))!.folderId;
    }
    default:
      throw new Error(type);
  }
}

describe('POST /api/public/v2/folders', () => {
  it('creates folders at the root and below, with the path of their ancestors and external ids', async () => {
    const mapping = { source: 'crm', external_id: uniqueName('F') };
    const top = await service.call('POST', BASE, {
      body: { name: uniqueName('top'), external_ids: [mapping] },
    });
    expect(top.status, JSON.stringify(top.body)).toBe(201);
    expect(top.body).toEqual({
      success: true,
      folder: {
        id: expect.any(Number),
        name: top.body.folder.name,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        path: null,
        workspace_id: service.workspaceId,
        parent_id: null,
        external_ids: [mapping],
      },
    });
    const middle = await createFolder('middle', top.body.folder.id);
    const bottom = await createFolder('bottom', middle.id);
    expect(middle.path).toEqual([{ id: top.body.folder.id, name: top.body.folder.name }]);
    expect(bottom).toMatchObject({
      parent_id: middle.id,
      path: [
        { id: top.body.folder.id, name: top.body.folder.name },
        { id: middle.id, name: 'middle' },
      ],
    });
  });

  it('answers 409 for a name its parent has (the same name elsewhere is fine), writing nothing', async () => {
    const parent = await createFolder(uniqueName('parent'));
    await createFolder('Reports', parent.id);
    const answer = await service.rejected('POST', BASE, { body: { name: 'Reports', parent_id: parent.id } });
    expect(answer.status).toBe(409);
    expect(answer.body.message).toContain('Reports');
    await createFolder('Reports', (await createFolder(uniqueName('other'))).id);
    await createFolder('reports', parent.id);
  });

  it('refuses an unknown parent (404), a bad name (422), another workspace_id (400), a taken external id (409)', async () => {
    expect((await service.rejected('POST', BASE, { body: { name: 'x', parent_id: 987654321 } })).status).toBe(
      404,
    );
    expect((await service.rejected('POST', BASE, { body: { name: '' } })).status).toBe(422);
    expect((await service.rejected('POST', BASE, { body: { name: 'n'.repeat(256) } })).status).toBe(422);
    expect((await service.rejected('POST', BASE, { body: { name: 'x', parent_id: 0 } })).status).toBe(422);
    const otherWs = await service.rejected('POST', BASE, {
      body: { name: 'x', workspace_id: service.workspaceId + 1000 },
    });
    expect(otherWs.status).toBe(400);
    const mapping = { source: 'crm', external_id: uniqueName('dup') };
    await service.call('POST', BASE, { body: { name: uniqueName('a'), external_ids: [mapping] } });
    const taken = await service.rejected('POST', BASE, {
      body: { name: uniqueName('b'), external_ids: [mapping] },
    });
    expect(taken.status).toBe(409);
  });

  it('needs edit on folders', async () => {
    const key = await service.keyWithPermissions({ folders: 'read' });
    const answer = await service.rejected('POST', BASE, { body: { name: uniqueName('ro') }, key });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('folders');
  });
});

describe('GET /api/public/v2/folders and resolve-id', () => {
  it('lists every folder with its path, or the children of one', async () => {
    const top = await createFolder(uniqueName('list'));
    const child = await createFolder('child', top.id);
    const all = await service.call('GET', BASE);
    expect(all.status).toBe(200);
    const listed = all.body.folders.find((folder: Folder) => folder.id === child.id);
    expect(listed).toMatchObject({
      name: 'child',
      parent_id: top.id,
      path: [{ id: top.id, name: top.name }],
    });
    const children = await service.call('GET', BASE, { query: { parent_id: top.id } });
    expect(children.body.folders.map((folder: Folder) => folder.id)).toEqual([child.id]);
    expect((await service.call('GET', BASE, { query: { parent_id: 987654321 } })).status).toBe(404);
    // null names the workspace root, as in every list's folder_id filter.
    const atRoot = await service.call('GET', BASE, { query: { parent_id: 'null' } });
    expect(atRoot.status, JSON.stringify(atRoot.body)).toBe(200);
    const rootIds = atRoot.body.folders.map((folder: Folder) => folder.id);
    expect(rootIds).toContain(top.id);
    expect(rootIds).not.toContain(child.id);
    expect(atRoot.body.folders.every((folder: Folder) => folder.parent_id === null)).toBe(true);
  });

  it('resolves a dot-separated path of names, names with dots included', async () => {
    const top = await createFolder(uniqueName('resolve'));
    const dotted = await createFolder('v1.2', top.id);
    const leaf = await createFolder('leaf', dotted.id);
    const resolve = (path: string) => service.call('GET', `${BASE}/resolve-id`, { query: { path } });
    expect((await resolve(top.name)).body).toEqual({ success: true, id: top.id });
    expect((await resolve(`${top.name}.v1.2.leaf`)).body.id).toBe(leaf.id);
    expect((await resolve(`${top.name}.nothing`)).status).toBe(404);
    expect((await resolve('')).status).toBe(422);
  });
});

describe('PATCH /api/public/v2/folders/{folder_id}', () => {
  it('renames and moves a folder, freeing its old name', async () => {
    const a = await createFolder(uniqueName('a'));
    const b = await createFolder(uniqueName('b'));
    const x = await createFolder('x', a.id);
    const renamed = await service.call('PATCH', `${BASE}/${x.id}`, { body: { name: 'y' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.folder).toMatchObject({ id: x.id, name: 'y', parent_id: a.id });
    const moved = await service.call('PATCH', `${BASE}/${x.id}`, { body: { parent_id: b.id, name: 'z' } });
    expect(moved.body.folder).toMatchObject({
      name: 'z',
      parent_id: b.id,
      path: [{ id: b.id, name: b.name }],
    });
    // Both old names are free again.
    await createFolder('x', a.id);
    await createFolder('y', a.id);
    const toRoot = await service.call('PATCH', `${BASE}/${x.id}`, {
      body: { parent_id: null, name: uniqueName('z') },
    });
    expect(toRoot.body.folder).toMatchObject({ parent_id: null, path: null });
  });

  it('answers 409 for a name the target has, 422 into itself or a descendant, 404 for unknown folders', async () => {
    const a = await createFolder(uniqueName('a'));
    const child = await createFolder('child', a.id);
    const grandchild = await createFolder('grandchild', child.id);
    await createFolder('taken', a.id);
    const other = await createFolder('taken', child.id);
    expect(
      (await service.rejected('PATCH', `${BASE}/${other.id}`, { body: { parent_id: a.id } })).status,
    ).toBe(409);
    expect((await service.rejected('PATCH', `${BASE}/${child.id}`, { body: { name: 'taken' } })).status).toBe(
      409,
    );
    expect((await service.rejected('PATCH', `${BASE}/${a.id}`, { body: { parent_id: a.id } })).status).toBe(
      422,
    );
    const intoDescendant = await service.rejected('PATCH', `${BASE}/${a.id}`, {
      body: { parent_id: grandchild.id },
    });
    expect(intoDescendant.status).toBe(422);
    expect((await service.rejected('PATCH', `${BASE}/987654321`, { body: { name: 'q' } })).status).toBe(404);
    expect(
      (await service.rejected('PATCH', `${BASE}/${a.id}`, { body: { parent_id: 987654321 } })).status,
    ).toBe(404);
    expect((await service.rejected('PATCH', `${BASE}/${a.id}`, { body: {} })).status).toBe(422);
  });

  it('never forms a cycle when two folders move into each other at once (one answers 422)', async () => {
    const statuses = async (calls: Promise<{ status: number }>[]) =>
      (await Promise.all(calls)).map((answer) => answer.status).sort();
    const a = await createFolder(uniqueName('a'));
    const b = await createFolder(uniqueName('b'));
    expect(
      await statuses([
        service.call('PATCH', `${BASE}/${a.id}`, { body: { parent_id: b.id } }),
        service.call('PATCH', `${BASE}/${b.id}`, { body: { parent_id: a.id } }),
      ]),
    ).toEqual([200, 422]);
    const c = await createFolder(uniqueName('c'));
    const d = await createFolder(uniqueName('d'));
    expect(
      await statuses([
        service.call('PATCH', `${BASE}/${c.id}`, { body: { parent_id: d.id } }),
        move([{ id: d.id, type: 'FOLDER' }], c.id),
      ]),
    ).toEqual([200, 422]);
    // Each pair is one folder under the other at the root, both reachable with a path.
    const all = await service.call('GET', BASE);
    const pathOf = (id: number) => all.body.folders.find((folder: Folder) => folder.id === id).path;
    for (const pair of [
      [a, b],
      [c, d],
    ] as const)
      expect(pair.map((folder) => pathOf(folder.id)?.length ?? 0).sort()).toEqual([0, 1]);
  });
});

describe('folder external ids', () => {
  it('attaches (idempotent), lists and detaches; 409 on another folder; 404 for unknown folders', async () => {
    const folder = await createFolder(uniqueName('xid'));
    const other = await createFolder(uniqueName('xid'));
    const mapping = { source: 'crm', external_id: uniqueName('E') };
    const url = `${BASE}/${folder.id}/external-ids`;
    const attached = await service.call('POST', url, { body: mapping });
    expect(attached.status).toBe(201);
    expect(attached.body).toEqual({ success: true, external_id: mapping });
    expect((await service.call('POST', url, { body: mapping })).status).toBe(201);
    expect((await service.call('GET', url)).body).toEqual({ success: true, external_ids: [mapping] });
    const listed = await service.call('GET', BASE);
    expect(listed.body.folders.find((f: Folder) => f.id === folder.id).external_ids).toEqual([mapping]);
    expect(
      (await service.rejected('POST', `${BASE}/${other.id}/external-ids`, { body: mapping })).status,
    ).toBe(409);
    expect((await service.rejected('POST', `${BASE}/987654321/external-ids`, { body: mapping })).status).toBe(
      404,
    );
    const detach = `${url}/${mapping.source}/${mapping.external_id}`;
    expect((await service.call('DELETE', detach)).status).toBe(200);
    expect((await service.rejected('DELETE', detach)).status).toBe(404);
    expect((await service.call('GET', url)).body.external_ids).toEqual([]);
  });
});

describe('moving entities: POST /api/public/v2/folders/entities', () => {
  it('moves entities of every kind; each kind reads its new folder and the listing shows them', async () => {
    const target = await createFolder(uniqueName('target'));
    const sub = await createFolder(uniqueName('sub'));
    const prompt = (await publish(service, uniqueName('prompt'))).id as number;
    const groupId = await createDatasetGroup(service);
    const workflowId = await createWorkflow();
    const toolId = await createTool();
    const report = await reportOver(service, 'question,expected\nq,a\n');
    const entities = [
      { id: prompt, type: 'PROMPT' },
      { id: prompt, type: 'PROMPT' },
      { id: groupId, type: 'DATASET' },
      { id: workflowId, type: 'WORKFLOW' },
      { id: toolId, type: 'TOOL' },
      { id: report.report_id, type: 'REPORT' },
      { id: sub.id, type: 'FOLDER' },
    ];
    const moved = await move(entities, target.id);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toEqual({ moved_count: 6 });
    for (const { id, type } of entities.filter((entity) => entity.type !== 'FOLDER'))
      expect(await folderOf(type, id), `${type} ${id}`).toBe(target.id);

    const listed = await listEntities({ folder_id: target.id });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    // PromptLayer's types only: the tool is listed when asked for (TOOL is not in PromptLayer's enum).
    expect(entityIds(listed)).toEqual(
      [
        `PROMPT:${prompt}`,
        `DATASET:${groupId}`,
        `WORKFLOW:${workflowId}`,
        `REPORT:${report.report_id}`,
        `FOLDER:${sub.id}`,
      ].sort(),
    );
    const withTools = await service.call(
      'GET',
      `${ENTITIES}?folder_id=${target.id}&filter_type=TOOL&filter_type=PROMPT&filter_type=FOLDER`,
    );
    expect(entityIds(withTools)).toEqual([`PROMPT:${prompt}`, `TOOL:${toolId}`, `FOLDER:${sub.id}`].sort());
    expect(listed.body.entities[0]).toMatchObject({ type: 'FOLDER', id: sub.id, path: [target.name] });
    const promptEntity = listed.body.entities.find((e: { type: string }) => e.type === 'PROMPT');
    expect(promptEntity).toEqual({
      id: prompt,
      name: expect.any(String),
      type: 'PROMPT',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      folder_id: target.id,
      path: [target.name],
      external_ids: [],
    });
    // Out of the root listing, back in it after a move to the root (a SNIPPET is its prompt template).
    expect(entityIds(await listEntities({ filter_type: 'PROMPT' }))).not.toContain(`PROMPT:${prompt}`);
    expect((await move([{ id: prompt, type: 'SNIPPET' }], null)).body).toEqual({ moved_count: 1 });
    expect(await folderOf('PROMPT', prompt)).toBeNull();
    expect(entityIds(await listEntities({ filter_type: 'PROMPT' }))).toContain(`PROMPT:${prompt}`);
  });

  it('answers 403 naming prompts to a key read-only for prompts, before moving anything', async () => {
    const target = await createFolder(uniqueName('target'));
    const prompt = (await publish(service, uniqueName('prompt'))).id as number;
    const groupId = await createDatasetGroup(service);
    const key = await service.keyWithPermissions({ prompts: 'read', datasets: 'edit', folders: 'edit' });
    const answer = await service.rejected('POST', ENTITIES, {
      body: {
        entities: [
          { id: groupId, type: 'DATASET' },
          { id: prompt, type: 'PROMPT' },
        ],
        folder_id: target.id,
      },
      key,
    });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('prompts');
    expect(await folderOf('DATASET', groupId)).toBeNull();
    expect(await folderOf('PROMPT', prompt)).toBeNull();
  });

  it('answers 404 naming the first missing entity and moves nothing; AB_TEST and INPUT_VARIABLE_SET never exist', async () => {
    const target = await createFolder(uniqueName('target'));
    const toolId = await createTool();
    const missing = await service.rejected('POST', ENTITIES, {
      body: {
        entities: [
          { id: toolId, type: 'TOOL' },
          { id: 987654321, type: 'WORKFLOW' },
          { id: 987654322, type: 'PROMPT' },
        ],
        folder_id: target.id,
      },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('WORKFLOW 987654321 not found');
    expect(await folderOf('TOOL', toolId)).toBeNull();
    for (const type of ['AB_TEST', 'INPUT_VARIABLE_SET']) {
      const answer = await service.rejected('POST', ENTITIES, { body: { entities: [{ id: 1, type }] } });
      expect(answer.status).toBe(404);
      expect(answer.body.message).toContain(type);
    }
    const skill = await service.rejected('POST', ENTITIES, {
      body: { entities: [{ id: '7d0e4c52-0b8e-4b0a-9f57-1c2d3e4f5a6b', type: 'SKILL_COLLECTION' }] },
    });
    expect(skill.status).toBe(404);
    expect(
      (
        await service.rejected('POST', ENTITIES, {
          body: { entities: [{ id: 1, type: 'SKILL_COLLECTION' }] },
        })
      ).status,
    ).toBe(422);
    expect(
      (await service.rejected('POST', ENTITIES, { body: { entities: [{ id: 'x', type: 'PROMPT' }] } }))
        .status,
    ).toBe(422);
    expect(
      (await service.rejected('POST', ENTITIES, { body: { entities: [{ id: 1, type: 'BOOK' }] } })).status,
    ).toBe(422);
    const unknownFolder = await service.rejected('POST', ENTITIES, {
      body: { entities: [{ id: toolId, type: 'TOOL' }], folder_id: 987654321 },
    });
    expect(unknownFolder.status).toBe(404);
    const otherWs = await service.rejected('POST', ENTITIES, {
      body: { entities: [{ id: toolId, type: 'TOOL' }], workspace_id: service.workspaceId + 1000 },
    });
    expect(otherWs.status).toBe(400);
  });

  it('refuses a folder into itself or a descendant (422) and onto a taken name (409), moving nothing', async () => {
    const a = await createFolder(uniqueName('a'));
    const child = await createFolder('child', a.id);
    const toolId = await createTool();
    const intoChild = await service.rejected('POST', ENTITIES, {
      body: {
        entities: [
          { id: toolId, type: 'TOOL' },
          { id: a.id, type: 'FOLDER' },
        ],
        folder_id: child.id,
      },
    });
    expect(intoChild.status).toBe(422);
    // The detail points at the move's own field (its body has no parent_id).
    expect(intoChild.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'folder_id'], msg: expect.stringContaining('descendant') }),
    ]);
    const intoItself = await service.rejected('POST', ENTITIES, {
      body: { entities: [{ id: a.id, type: 'FOLDER' }], folder_id: a.id },
    });
    expect(intoItself.status).toBe(422);
    expect(intoItself.body.message).toBe(
      `Invalid body.folder_id: folder ${a.id} cannot be moved into itself`,
    );
    const sameName = await createFolder('child');
    const taken = await service.rejected('POST', ENTITIES, {
      body: {
        entities: [
          { id: toolId, type: 'TOOL' },
          { id: sameName.id, type: 'FOLDER' },
        ],
        folder_id: a.id,
      },
    });
    expect(taken.status).toBe(409);
    expect(await folderOf('TOOL', toolId)).toBeNull();
  });
});

describe('placing an entity in a folder when it is created', () => {
  it("answers 404 for an unknown or another workspace's folder, writing nothing, for every kind", async () => {
    const key = await service.otherWorkspaceKey(uniqueName('neighbour'));
    const theirs = await createFolder(uniqueName('theirs'), null, key);
    const mine = await createFolder(uniqueName('mine'));
    const { groupId } = await publishedDataset(service, 'question,expected\nq,a\n');
    const tool = {
      tool_definition: {
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: {} },
      },
    };
    const creates = (folderId: number): [string, string, Record<string, unknown>][] => [
      [
        'POST',
        '/rest/prompt-templates',
        publishBody(uniqueName('p'), undefined, {
          prompt_template: { prompt_name: uniqueName('p'), folder_id: folderId },
        }),
      ],
      ['POST', '/rest/workflows', workflowBody(uniqueName('wf'), { folder_id: folderId })],
      ['POST', '/api/public/v2/tool-registry', { name: uniqueName('tool'), ...tool, folder_id: folderId }],
      ['POST', '/api/public/v2/dataset-groups', { name: uniqueName('group'), folder_id: folderId }],
      ['POST', '/reports', { dataset_group_id: groupId, folder_id: folderId }],
    ];
    for (const folderId of [987654321, theirs.id])
      for (const [method, path, body] of creates(folderId)) {
        const answer = await service.rejected(method, path, { body });
        expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(404);
        expect(answer.body.message).toBe(`Folder ${folderId} not found`);
      }
    for (const [method, path, body] of creates(mine.id)) {
      // A publish answers 200 (as PromptLayer documents), every other create 201.
      const created = path === '/rest/prompt-templates' ? 200 : 201;
      expect((await service.call(method, path, { body })).status, path).toBe(created);
    }
    // The tool is listed when asked for (TOOL is not among PromptLayer's types).
    expect((await listEntities({ folder_id: mine.id })).body.entities).toHaveLength(4);
    expect((await listEntities({ folder_id: mine.id, filter_type: 'TOOL' })).body.entities).toHaveLength(1);
  });
});

describe('GET /api/public/v2/folders/entities', () => {
  it('filters by type and name, flattens a subtree, adds metadata, and checks the folder', async () => {
    const top = await createFolder(uniqueName('browse'));
    const inner = await createFolder('inner', top.id);
    const promptName = uniqueName('Needle');
    const prompt = (await publish(service, promptName)).id as number;
    const workflowId = await createWorkflow();
    const groupId = await createDatasetGroup(service);
    await move(
      [
        { id: prompt, type: 'PROMPT' },
        { id: groupId, type: 'DATASET' },
      ],
      top.id,
    );
    await move([{ id: workflowId, type: 'WORKFLOW' }], inner.id);

    expect(entityIds(await listEntities({ folder_id: top.id }))).toEqual(
      [`FOLDER:${inner.id}`, `PROMPT:${prompt}`, `DATASET:${groupId}`].sort(),
    );
    const flat = await listEntities({ folder_id: top.id, flatten: true });
    expect(entityIds(flat)).toEqual(
      [`FOLDER:${inner.id}`, `PROMPT:${prompt}`, `DATASET:${groupId}`, `WORKFLOW:${workflowId}`].sort(),
    );
    expect(flat.body.entities.find((e: { type: string }) => e.type === 'WORKFLOW').path).toEqual([
      top.name,
      'inner',
    ]);
    const both = await service.call(
      'GET',
      `${ENTITIES}?folder_id=${top.id}&filter_type=PROMPT&filter_type=FOLDER`,
    );
    expect(entityIds(both)).toEqual([`FOLDER:${inner.id}`, `PROMPT:${prompt}`].sort());
    expect(entityIds(await listEntities({ folder_id: top.id, search_query: 'needle' }))).toEqual([
      `PROMPT:${prompt}`,
    ]);
    const withMetadata = await listEntities({
      folder_id: top.id,
      include_metadata: true,
      sort_by: 'name',
      sort_order: 'asc',
    });
    const byType = Object.fromEntries(withMetadata.body.entities.map((e: { type: string }) => [e.type, e]));
    expect(byType.PROMPT.metadata).toEqual({ type: 'chat', latest_version_number: 1 });
    expect(byType.DATASET.metadata).toEqual({ isDraft: true, latest_version_number: null });
    const mapping = { source: 'crm', external_id: uniqueName('P') };
    expect(
      (await service.call('POST', `/prompt-templates/${prompt}/external-ids`, { body: mapping })).status,
    ).toBe(201);
    const byExternalId = await listEntities({
      folder_id: top.id,
      external_source: 'crm',
      external_id: mapping.external_id,
    });
    expect(byExternalId.body.entities).toEqual([
      expect.objectContaining({ id: prompt, external_ids: [mapping] }),
    ]);
    expect((await listEntities({ folder_id: 987654321 })).status).toBe(404);
    // folder_id=null is the root, as absent is (and as in every list's folder_id filter).
    const atRoot = await listEntities({ folder_id: 'null', filter_type: 'FOLDER' });
    expect(atRoot.status, JSON.stringify(atRoot.body)).toBe(200);
    expect(entityIds(atRoot)).toEqual(entityIds(await listEntities({ filter_type: 'FOLDER' })));
    expect(entityIds(atRoot)).toContain(`FOLDER:${top.id}`);
    expect((await listEntities({ sort_order: 'asc' })).status).toBe(422);
    expect((await listEntities({ external_source: 'crm' })).status).toBe(422);
  });

  it('answers 403 for a type the key may not read, and leaves such kinds out otherwise', async () => {
    const top = await createFolder(uniqueName('perm'));
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    const toolId = await createTool();
    await move(
      [
        { id: prompt, type: 'PROMPT' },
        { id: toolId, type: 'TOOL' },
      ],
      top.id,
    );
    const key = await service.keyWithPermissions({ folders: 'read', tools: 'read' });
    expect(entityIds(await listEntities({ folder_id: top.id }, key))).toEqual([]);
    expect(entityIds(await listEntities({ folder_id: top.id, filter_type: 'TOOL' }, key))).toEqual([
      `TOOL:${toolId}`,
    ]);
    const refused = await listEntities({ folder_id: top.id, filter_type: 'PROMPT' }, key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('prompts');
  });
});

describe('deleting folders', () => {
  it('refuses a folder that holds anything (409 naming it), and deletes an empty one', async () => {
    const full = await createFolder(uniqueName('full'));
    await createFolder('sub', full.id);
    const toolId = await createTool();
    await move([{ id: toolId, type: 'TOOL' }], full.id);
    const refused = await service.rejected('DELETE', `${BASE}/${full.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('1 folder, 1 tool');
    const empty = await createFolder(uniqueName('empty'));
    const deleted = await service.call('DELETE', `${BASE}/${empty.id}`);
    expect(deleted.body).toEqual({ success: true, deleted_folders: 1, moved_to_root: 0 });
    expect((await service.rejected('DELETE', `${BASE}/${empty.id}`)).status).toBe(404);
    // Its name is free again.
    await createFolder(empty.name);
  });

  it('with cascade deletes the subtree and moves its entities to the root, destroying none', async () => {
    const top = await createFolder(uniqueName('cascade'));
    const sub = await createFolder('sub', top.id);
    const mapping = { source: 'crm', external_id: uniqueName('C') };
    await service.call('POST', `${BASE}/${sub.id}/external-ids`, { body: mapping });
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    const toolId = await createTool();
    await move([{ id: prompt, type: 'PROMPT' }], top.id);
    await move([{ id: toolId, type: 'TOOL' }], sub.id);
    const deleted = await service.call('DELETE', `${BASE}/${top.id}`, { query: { cascade: 'true' } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toEqual({ success: true, deleted_folders: 2, moved_to_root: 2 });
    expect(await folderOf('PROMPT', prompt)).toBeNull();
    expect(await folderOf('TOOL', toolId)).toBeNull();
    const folders = (await service.call('GET', BASE)).body.folders.map((f: Folder) => f.id);
    expect(folders).not.toContain(top.id);
    expect(folders).not.toContain(sub.id);
    // The deleted folder's external id is free for another.
    const other = await createFolder(uniqueName('other'));
    expect((await service.call('POST', `${BASE}/${other.id}/external-ids`, { body: mapping })).status).toBe(
      201,
    );
  });

  it('with cascade needs edit on each kind it moves to the root (403 naming it, nothing deleted)', async () => {
    const top = await createFolder(uniqueName('guarded'));
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    await move([{ id: prompt, type: 'PROMPT' }], top.id);
    const key = await service.keyWithPermissions({ folders: 'edit', prompts: 'read' });
    const refused = await service.rejected('DELETE', `${BASE}/${top.id}`, {
      query: { cascade: 'true' },
      key,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('prompts');
    expect(await folderOf('PROMPT', prompt)).toBe(top.id);
  });

  it('DELETE /folders/entities deletes folders and sends other types to their own endpoints (400)', async () => {
    const a = await createFolder(uniqueName('a'));
    const b = await createFolder(uniqueName('b'));
    const answer = await service.call('DELETE', ENTITIES, {
      body: {
        entities: [
          { id: a.id, type: 'FOLDER' },
          { id: b.id, type: 'FOLDER' },
        ],
      },
    });
    expect(answer.body).toEqual({ moved_count: 2 });
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    const refused = await service.rejected('DELETE', ENTITIES, {
      body: { entities: [{ id: prompt, type: 'PROMPT' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('PROMPT');
    const c = await createFolder(uniqueName('c'));
    await createFolder('inside', c.id);
    expect(
      (await service.rejected('DELETE', ENTITIES, { body: { entities: [{ id: c.id, type: 'FOLDER' }] } }))
        .status,
    ).toBe(409);
    const cascaded = await service.call('DELETE', ENTITIES, {
      body: { entities: [{ id: c.id, type: 'FOLDER' }], cascade: true },
    });
    expect(cascaded.body).toEqual({ moved_count: 2 });
  });
});

describe('workspace isolation', () => {
  it('answers 404 to another workspace for every folder id and entity of this one', async () => {
    const folder = await createFolder(uniqueName('mine'));
    const child = await createFolder('child', folder.id);
    const mapping = { source: 'crm', external_id: uniqueName('I') };
    await service.call('POST', `${BASE}/${folder.id}/external-ids`, { body: mapping });
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    const groupId = await createDatasetGroup(service);
    const key = await service.otherWorkspaceKey(uniqueName('intruder'));
    const theirs = await createFolder(uniqueName('theirs'), null, key);

    const refused = async (
      method: string,
      path: string,
      options: { body?: unknown; query?: Record<string, string | number> } = {},
    ) => {
      const answer = await service.rejected(method, path, { ...options, key });
      expect(answer.status, `${method} ${path}`).toBe(404);
    };
    await refused('POST', BASE, { body: { name: 'x', parent_id: folder.id } });
    await refused('GET', BASE, { query: { parent_id: folder.id } });
    await refused('PATCH', `${BASE}/${folder.id}`, { body: { name: 'x' } });
    await refused('PATCH', `${BASE}/${theirs.id}`, { body: { parent_id: folder.id } });
    await refused('DELETE', `${BASE}/${folder.id}`);
    await refused('POST', `${BASE}/${folder.id}/external-ids`, { body: { source: 'a', external_id: 'b' } });
    await refused('GET', `${BASE}/${folder.id}/external-ids`);
    await refused('DELETE', `${BASE}/${folder.id}/external-ids/${mapping.source}/${mapping.external_id}`);
    await refused('GET', ENTITIES, { query: { folder_id: folder.id } });
    await refused('POST', ENTITIES, {
      body: { entities: [{ id: theirs.id, type: 'FOLDER' }], folder_id: folder.id },
    });
    for (const entity of [
      { id: folder.id, type: 'FOLDER' },
      { id: prompt, type: 'PROMPT' },
      { id: groupId, type: 'DATASET' },
    ])
      await refused('POST', ENTITIES, { body: { entities: [entity], folder_id: theirs.id } });
    await refused('DELETE', ENTITIES, { body: { entities: [{ id: child.id, type: 'FOLDER' }] } });
    await refused('GET', `${BASE}/resolve-id`, { query: { path: folder.name } });
    const listed = await service.call('GET', BASE, { key });
    expect(listed.body.folders.map((f: Folder) => f.id)).toEqual([theirs.id]);
    expect(entityIds(await listEntities({}, key))).toEqual([`FOLDER:${theirs.id}`]);
  });
});

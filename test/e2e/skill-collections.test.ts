import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';
import { formBody, skillMd, zipOf } from '#test/support/skill-archives.ts';

/**
 * Skill collections through the local gateway: create (JSON and multipart ZIP), the name's uniqueness,
 * the list and its filters, reads by id, name, version and label, the ZIP round trip, versions
 * (updates, moves, deletes, labels), rename, external ids, workspace isolation, bad input (nothing
 * stored) and the `skill_collection_files_changed` event delivered to a webhook.
 */
let service: TestService;
let receiver: Receiver;
let otherKey: string;
beforeAll(async () => {
  receiver = await startReceiver();
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey(uniqueName('skills-other'));
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
});

const BASE = '/api/public/v2/skill-collections';
const at = (identifier: string, tail = '') => `${BASE}/${encodeURIComponent(identifier)}${tail}`;

/** A collection's files: a skill folder `skill` and a top-level README. */
const filesOf = (skill: string, extra: Record<string, string> = {}) => ({
  [`${skill}/SKILL.md`]: skillMd(skill),
  [`${skill}/references/guide.md`]: '# Guide\n',
  'README.md': 'A collection.\n',
  ...extra,
});
const asList = (files: Record<string, string>) =>
  Object.entries(files).map(([path, content]) => ({ path, content }));

async function create(body: Record<string, unknown>, key?: string) {
  const answer = await service.call('POST', BASE, { body, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}
const createNamed = (name: string, extra: Record<string, unknown> = {}, key?: string) =>
  create({ name, files: asList(filesOf('triage')), ...extra }, key);
const get = (identifier: string, query: Record<string, string | number> = {}, key?: string) =>
  service.call('GET', at(identifier), { query, key });
const addVersion = (identifier: string, body: Record<string, unknown>, key?: string) =>
  service.call('POST', at(identifier, '/versions'), { body, key });

/** The raw bytes of a GET (the test service's `call` reads answers as text). */
async function download(identifier: string, query: Record<string, string> = {}) {
  const url = new URL(at(identifier), service.baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetch(url, {
    headers: { 'X-API-KEY': service.apiKey, Accept: 'application/zip' },
  });
  return {
    status: response.status,
    headers: response.headers,
    data: Buffer.from(await response.arrayBuffer()),
  };
}

describe('POST /api/public/v2/skill-collections', () => {
  it('creates a collection at version 1 from JSON files (201), readable by id and by name', async () => {
    const name = uniqueName('support');
    const mapping = { source: 'git', external_id: uniqueName('repo') };
    const folderId = await createFolder(service);
    const created = await create({
      name,
      folder_id: folderId,
      provider: 'claude',
      files: asList(filesOf('triage')),
      commit_message: 'first',
      external_ids: [mapping],
    });
    expect(created).toEqual({
      success: true,
      skill_collection: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        workspace_id: service.workspaceId,
        folder_id: folderId,
        root_path: name,
        name,
        provider: 'claude',
        is_deleted: false,
        created_by: expect.any(Number),
        created_at: expect.any(String),
        updated_by: expect.any(Number),
        updated_at: expect.any(String),
        latest_version_number: 1,
        external_ids: [mapping],
      },
      version: expect.objectContaining({
        number: 1,
        skill_collection_id: created.skill_collection.id,
        commit_message: 'first',
        file_paths: ['README.md', 'triage/SKILL.md', 'triage/references/guide.md'],
        release_label: null,
      }),
      external_ids: [mapping],
    });
    const byId = await get(created.skill_collection.id);
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.files).toEqual(filesOf('triage'));
    expect(byId.body.skill_collection).toEqual(created.skill_collection);
    expect(byId.body.version).toEqual(created.version);
    const byName = await get(name);
    expect(byName.body).toEqual(byId.body);
  });

  it('creates a collection from a ZIP sent as multipart/form-data (archive + metadata, or zip + json)', async () => {
    const files = filesOf('refunds', { 'AGENTS.md': 'Agents.\n' });
    for (const [fileField, textField] of [
      ['archive', 'metadata'],
      ['zip', 'json'],
    ] as const) {
      const name = uniqueName('zipped');
      const form = await formBody(
        { [textField]: JSON.stringify({ name, commit_message: 'from a zip', provider: 'codex' }) },
        { field: fileField, data: await zipOf(files) },
      );
      const answer = await service.call('POST', BASE, form);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body.skill_collection).toMatchObject({ name, provider: 'codex' });
      expect(answer.body.version).toMatchObject({ commit_message: 'from a zip', number: 1 });
      expect((await get(name)).body.files).toEqual(files);
    }
  });

  it('answers 409 for a taken name, and writes nothing', async () => {
    const name = uniqueName('taken');
    await createNamed(name);
    const again = await service.rejected('POST', BASE, { body: { name, files: asList(filesOf('other')) } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(name);
  });

  it('answers 409 for an external id another collection holds, and writes nothing', async () => {
    const mapping = { source: 'git', external_id: uniqueName('held') };
    await createNamed(uniqueName('holder'), { external_ids: [mapping] });
    const answer = await service.rejected('POST', BASE, {
      body: { name: uniqueName('second'), files: asList(filesOf('triage')), external_ids: [mapping] },
    });
    expect(answer.status).toBe(409);
  });

  it('refuses bad paths (400) and a SKILL.md that breaks the rules (422 naming the file), writing nothing', async () => {
    for (const path of ['../escape.md', '/etc/passwd', 'a\\b.md', 'dup.md']) {
      const files = [
        { path, content: 'x' },
        ...(path === 'dup.md' ? [{ path: 'dup.md', content: 'y' }] : []),
      ];
      const answer = await service.rejected('POST', BASE, { body: { name: uniqueName('bad'), files } });
      expect([400, 422], `${path}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
    const wrongName = await service.rejected('POST', BASE, {
      body: {
        name: uniqueName('bad'),
        files: [{ path: 'triage/SKILL.md', content: skillMd('not-triage') }],
      },
    });
    expect(wrongName.status).toBe(422);
    expect(wrongName.body.message).toContain('triage/SKILL.md');
    const noDescription = await service.rejected('POST', BASE, {
      body: {
        name: uniqueName('bad'),
        files: [{ path: 'triage/SKILL.md', content: '---\nname: triage\n---\nbody\n' }],
      },
    });
    expect(noDescription.status).toBe(422);
    expect(noDescription.body.message).toContain('triage/SKILL.md');
  });

  it('refuses a missing name (422), malformed metadata (400) and a read-only key (403)', async () => {
    expect((await service.rejected('POST', BASE, { body: { files: [] } })).status).toBe(422);
    const form = await formBody({ metadata: '{not json' }, { field: 'archive', data: await zipOf({}) });
    expect((await service.rejected('POST', BASE, form)).status).toBe(400);
    const readOnly = await service.keyWithPermissions({ skills: 'read' });
    const refused = await service.rejected('POST', BASE, {
      body: { name: uniqueName('ro'), files: [] },
      key: readOnly,
    });
    expect(refused.status).toBe(403);
  });
});

describe('GET /api/public/v2/skill-collections/{identifier}?format=zip', () => {
  it('answers the files as a ZIP that creates the same collection again', async () => {
    const name = uniqueName('exported');
    const files = filesOf('export-me', { 'notes/ünïcode.md': 'héllo ✓\n' });
    await create({ name, files: asList(files) });
    const zip = await download(name, { format: 'zip' });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.data.subarray(0, 2).toString('latin1')).toBe('PK');
    const copy = uniqueName('imported');
    const form = await formBody(
      { metadata: JSON.stringify({ name: copy }) },
      { field: 'archive', data: zip.data },
    );
    const answer = await service.call('POST', BASE, form);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect((await get(copy)).body.files).toEqual(files);
  });
});

describe('POST /api/public/v2/skill-collections/{identifier}/versions', () => {
  it('applies moves, deletes and updates, moves a label, and each version stays readable', async () => {
    const name = uniqueName('versioned');
    const created = await createNamed(name);
    const id = created.skill_collection.id;
    const second = await addVersion(id, {
      moves: [{ old_path: 'README.md', new_path: 'docs/README.md' }],
      deletes: ['triage/references/guide.md'],
      file_updates: [
        { path: 'triage/SKILL.md', content: skillMd('triage', 'Now with more steps.') },
        { path: 'triage/scripts/run.sh', content: 'echo hi\n' },
      ],
      commit_message: 'second',
      release_label: 'production',
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body).toEqual({
      success: true,
      skill_collection: expect.objectContaining({ id, name, latest_version_number: 2 }),
      version: expect.objectContaining({
        number: 2,
        commit_message: 'second',
        release_label: 'production',
        file_paths: ['docs/README.md', 'triage/SKILL.md', 'triage/scripts/run.sh'],
      }),
    });
    const third = await addVersion(name, { file_updates: [{ path: 'docs/extra.md', content: 'more' }] });
    expect(third.status, JSON.stringify(third.body)).toBe(201);
    expect(third.body.version).toMatchObject({ number: 3, release_label: null });

    const latest = await get(id);
    expect(latest.body.version.number).toBe(3);
    expect(latest.body.skill_collection.latest_version_number).toBe(3);
    expect(Object.keys(latest.body.files).sort()).toEqual([
      'docs/README.md',
      'docs/extra.md',
      'triage/SKILL.md',
      'triage/scripts/run.sh',
    ]);
    const byLabel = await get(id, { label: 'production' });
    expect(byLabel.body.version).toMatchObject({ number: 2, release_label: 'production' });
    expect(byLabel.body.files['triage/SKILL.md']).toContain('Now with more steps.');
    expect(byLabel.body.skill_collection.latest_version_number).toBe(3);
    const first = await get(name, { version: 1 });
    expect(first.body.files).toEqual(filesOf('triage'));

    // The label moves to a later version.
    const fourth = await addVersion(id, { deletes: ['docs/extra.md'], release_label: 'production' });
    expect(fourth.status).toBe(201);
    expect((await get(id, { label: 'production' })).body.version.number).toBe(4);

    expect((await get(id, { version: 9 })).status).toBe(404);
    expect((await get(id, { label: 'staging' })).status).toBe(404);
    expect((await get(id, { version: 1, label: 'production' })).status).toBe(422);
  });

  it('writes only contents it has not stored: a move writes no object, an update one pack', async () => {
    const name = uniqueName('packed');
    const before = await service.countObjects();
    // Contents no other test stores (the same contents make the same pack, stored once).
    const files = filesOf('triage', { 'unique.md': name });
    await create({ name, files: asList(files) });
    expect(await service.countObjects()).toBe(before + 1);
    const moved = await addVersion(name, { moves: [{ old_path: 'README.md', new_path: 'docs/README.md' }] });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(await service.countObjects()).toBe(before + 1);
    const updated = await addVersion(name, {
      file_updates: [
        { path: 'a.md', content: 'new a' },
        { path: 'b.md', content: 'new b' },
        { path: 'c.md', content: '' },
      ],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(201);
    expect(await service.countObjects()).toBe(before + 2);
    expect((await get(name)).body.files).toMatchObject({
      'a.md': 'new a',
      'b.md': 'new b',
      'c.md': '',
      'docs/README.md': 'A collection.\n',
    });
    expect((await get(name, { version: 1 })).body.files).toEqual(files);
  });

  it('takes updated files from a ZIP sent as multipart/form-data', async () => {
    const name = uniqueName('zip-version');
    await createNamed(name);
    const form = await formBody(
      { metadata: JSON.stringify({ commit_message: 'zip update', deletes: ['README.md'] }) },
      // Two top-level entries: an archive whose files share one top folder that is no skill loses it.
      {
        field: 'zip',
        data: await zipOf({ 'triage/references/guide.md': '# Guide v2\n', 'NOTES.md': 'notes\n' }),
      },
    );
    const answer = await service.call('POST', at(name, '/versions'), form);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const files = (await get(name)).body.files;
    expect(files['triage/references/guide.md']).toBe('# Guide v2\n');
    expect(files['NOTES.md']).toBe('notes\n');
    expect(files['README.md']).toBeUndefined();
  });

  it('refuses a version that changes nothing (400), an unknown path (422) and a broken result (422), writing nothing', async () => {
    const name = uniqueName('strict');
    await createNamed(name);
    const same = await service.rejected('POST', at(name, '/versions'), {
      body: { file_updates: [{ path: 'README.md', content: 'A collection.\n' }] },
    });
    expect(same.status).toBe(400);
    const unknown = await service.rejected('POST', at(name, '/versions'), {
      body: { moves: [{ old_path: 'nope.md', new_path: 'yes.md' }] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toContain('nope.md');
    const broken = await service.rejected('POST', at(name, '/versions'), {
      body: { moves: [{ old_path: 'triage/SKILL.md', new_path: 'renamed/SKILL.md' }] },
    });
    expect(broken.status).toBe(422);
    expect(broken.body.message).toContain('renamed/SKILL.md');
    expect(
      (await service.rejected('POST', at(uniqueName('missing'), '/versions'), { body: {} })).status,
    ).toBe(404);
  });

  it('tells a webhook what each version changed (skill_collection_files_changed)', async () => {
    const webhook = await service.call('POST', '/api/public/v2/webhooks', {
      body: { url: `${receiver.url}/skills`, event_types: ['skill_collection_files_changed'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const name = uniqueName('observed');
    const created = await createNamed(name);
    const answer = await addVersion(name, {
      moves: [{ old_path: 'README.md', new_path: 'docs/README.md' }],
      file_updates: [{ path: 'triage/references/guide.md', content: 'changed' }],
    });
    expect(answer.status).toBe(201);
    await service.messaging.idle();
    const delivered = receiver.received
      .filter((request) => request.path === '/skills')
      .map((request) => JSON.parse(request.body))
      .filter((event) => event.details.skill_collection_id === created.skill_collection.id);
    expect(delivered.map((event) => event.details)).toEqual([
      {
        skill_collection_id: created.skill_collection.id,
        skill_collection_name: name,
        version_number: 1,
        added: ['README.md', 'triage/SKILL.md', 'triage/references/guide.md'],
        modified: [],
        deleted: [],
      },
      {
        skill_collection_id: created.skill_collection.id,
        skill_collection_name: name,
        version_number: 2,
        added: ['docs/README.md'],
        modified: ['triage/references/guide.md'],
        deleted: ['README.md'],
      },
    ]);
    expect(delivered[0]).toMatchObject({ event_type: 'skill_collection_files_changed' });
    const off = await service.call('PATCH', `/api/public/v2/webhooks/${webhook.body.webhook.id}`, {
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
  });
});

describe('PATCH /api/public/v2/skill-collections/{identifier}', () => {
  it('renames: the new name reads it, the old one is free again; a taken name is a 409', async () => {
    const name = uniqueName('before');
    const created = await createNamed(name);
    const id = created.skill_collection.id;
    const renamed = uniqueName('after');
    const answer = await service.call('PATCH', at(name), { body: { name: renamed } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.skill_collection).toMatchObject({ id, name: renamed, root_path: renamed });
    expect((await get(renamed)).body.skill_collection.id).toBe(id);
    expect((await get(name)).status).toBe(404);
    expect((await get(id)).body.skill_collection.name).toBe(renamed);

    const other = uniqueName('other');
    await createNamed(other);
    const clash = await service.rejected('PATCH', at(id), { body: { name: other } });
    expect(clash.status).toBe(409);
    // The old name can be taken by a new collection.
    await createNamed(name);
    expect((await get(name)).body.skill_collection.id).not.toBe(id);
  });
});

describe('GET /api/public/v2/skill-collections', () => {
  it('filters by folder, time and external id, sorts by name, pages', async () => {
    const folder = await createFolder(service);
    const prefix = uniqueName('listed');
    const mapping = { source: 'git', external_id: uniqueName('listed') };
    const b = await createNamed(`${prefix}-b`, { folder_id: folder });
    const a = await createNamed(`${prefix}-a`, { folder_id: folder, external_ids: [mapping] });
    await createNamed(`${prefix}-c`);
    const list = (query: Record<string, string | number>) =>
      service.call('GET', BASE, { query: { per_page: 100, ...query } });

    const inFolder = await list({ folder_id: folder, sort_by: 'name', sort_order: 'asc' });
    expect(inFolder.status, JSON.stringify(inFolder.body)).toBe(200);
    expect(inFolder.body.skill_collections.map((c: { name: string }) => c.name)).toEqual([
      `${prefix}-a`,
      `${prefix}-b`,
    ]);
    expect(inFolder.body.skill_collections[0]).toEqual({
      ...a.skill_collection,
      external_ids: [mapping],
    });
    const paged = await list({ folder_id: folder, sort_by: 'name', sort_order: 'desc', per_page: 1 });
    expect(paged.body).toMatchObject({ page: 1, per_page: 1, total: 2, has_next: true });
    expect(paged.body.skill_collections[0].id).toBe(b.skill_collection.id);

    const byMapping = await list({ external_source: mapping.source, external_id: mapping.external_id });
    expect(byMapping.body.skill_collections.map((c: { id: string }) => c.id)).toEqual([
      a.skill_collection.id,
    ]);
    const later = await list({ folder_id: folder, created_after: a.skill_collection.created_at });
    expect(later.body.skill_collections.map((c: { id: string }) => c.id)).toContain(a.skill_collection.id);
    const none = await list({ folder_id: folder, created_before: '2000-01-01T00:00:00Z' });
    expect(none.body.skill_collections).toEqual([]);
    // Most recently updated first by default.
    const recent = await list({});
    const ids = recent.body.skill_collections.map((c: { id: string }) => c.id);
    expect(ids.indexOf(a.skill_collection.id)).toBeLessThan(ids.indexOf(b.skill_collection.id));

    expect((await list({ external_source: 'git' })).status).toBe(422);
    expect((await list({ sort_order: 'asc' })).status).toBe(422);
  });
});

describe('external ids of skill collections', () => {
  it('attaches idempotently, refuses a mapping of another collection (409), lists and detaches', async () => {
    const one = (await createNamed(uniqueName('xid-one'))).skill_collection.id;
    const two = (await createNamed(uniqueName('xid-two'))).skill_collection.id;
    const mapping = { source: 'jira', external_id: uniqueName('SK') };
    const attach = (id: string) => service.call('POST', at(id, '/external-ids'), { body: mapping });
    expect((await attach(one)).status).toBe(201);
    const again = await attach(one);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ success: true, external_id: mapping });
    const clash = await service.rejected('POST', at(two, '/external-ids'), { body: mapping });
    expect(clash.status).toBe(409);
    const listed = await service.call('GET', at(one, '/external-ids'));
    expect(listed.body).toEqual({ success: true, external_ids: [mapping] });
    expect((await get(one)).body.skill_collection.external_ids).toEqual([mapping]);
    const path = at(one, `/external-ids/${mapping.source}/${encodeURIComponent(mapping.external_id)}`);
    expect((await service.call('DELETE', path)).status).toBe(200);
    const gone = await service.call('DELETE', path);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toContain(one);
    expect((await attach(two)).status).toBe(201);
  });
});

describe('skill collections in folders', () => {
  it('move into a folder by UUID, show it in their own read and in the folder listing, with external ids', async () => {
    const folder = await service.call('POST', '/api/public/v2/folders', {
      body: { name: uniqueName('skills-folder') },
    });
    expect(folder.status, JSON.stringify(folder.body)).toBe(201);
    const folderId = folder.body.folder.id;
    const mapping = { source: 'git', external_id: uniqueName('moved') };
    const created = await createNamed(uniqueName('moved'), { external_ids: [mapping] });
    const id: string = created.skill_collection.id;

    const moved = await service.call('POST', '/api/public/v2/folders/entities', {
      body: {
        // One collection named twice, in either case: moved (and counted) once.
        entities: [
          { id: id.toUpperCase(), type: 'SKILL_COLLECTION' },
          { id, type: 'SKILL_COLLECTION' },
        ],
        folder_id: folderId,
      },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.moved_count).toBe(1);
    expect((await get(id)).body.skill_collection.folder_id).toBe(folderId);

    // Listed when asked for: SKILL_COLLECTION is not in PromptLayer's enum (nor are its string ids).
    const unasked = await service.call('GET', '/api/public/v2/folders/entities', {
      query: { folder_id: folderId },
    });
    expect(unasked.body.entities).toEqual([]);
    const listed = await service.call('GET', '/api/public/v2/folders/entities', {
      query: { folder_id: folderId, filter_type: 'SKILL_COLLECTION' },
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.entities).toEqual([
      expect.objectContaining({
        id,
        name: created.skill_collection.name,
        type: 'SKILL_COLLECTION',
        folder_id: folderId,
        external_ids: [mapping],
      }),
    ]);
    // The listing's external id filter finds it by its mapping (stored under its internal number).
    const byMapping = await service.call('GET', '/api/public/v2/folders/entities', {
      query: {
        folder_id: folderId,
        filter_type: 'SKILL_COLLECTION',
        external_source: mapping.source,
        external_id: mapping.external_id,
      },
    });
    expect(byMapping.status, JSON.stringify(byMapping.body)).toBe(200);
    expect(byMapping.body.entities.map((e: { id: string; type: string }) => [e.type, e.id])).toEqual([
      ['SKILL_COLLECTION', id],
    ]);

    const missing = await service.call('POST', '/api/public/v2/folders/entities', {
      body: { entities: [{ id: crypto.randomUUID(), type: 'SKILL_COLLECTION' }], folder_id: folderId },
    });
    expect(missing.status).toBe(404);
    const foreign = await service.call('POST', '/api/public/v2/folders/entities', {
      body: { entities: [{ id, type: 'SKILL_COLLECTION' }] },
      key: otherKey,
    });
    expect(foreign.status).toBe(404);
    expect((await get(id)).body.skill_collection.folder_id).toBe(folderId);
  });
});

describe('workspace isolation', () => {
  it('answers 404 to another workspace for every route that names a collection', async () => {
    const name = uniqueName('private');
    const created = await createNamed(name, {
      external_ids: [{ source: 'iso', external_id: uniqueName('x') }],
    });
    const id = created.skill_collection.id;
    for (const identifier of [id, name]) {
      expect((await get(identifier, {}, otherKey)).status).toBe(404);
      expect((await get(identifier, { format: 'zip' }, otherKey)).status).toBe(404);
      const calls: [string, string, unknown][] = [
        ['POST', at(identifier, '/versions'), { file_updates: [{ path: 'x.md', content: 'x' }] }],
        ['PATCH', at(identifier), { name: uniqueName('stolen') }],
        ['POST', at(identifier, '/external-ids'), { source: 'iso', external_id: 'y' }],
        ['GET', at(identifier, '/external-ids'), undefined],
        ['DELETE', at(identifier, '/external-ids/iso/y'), undefined],
      ];
      for (const [method, path, body] of calls) {
        const answer = await service.rejected(method, path, { body, key: otherKey });
        expect(answer.status, `${method} ${path}`).toBe(404);
      }
    }
    const theirs = await service.call('GET', BASE, { key: otherKey, query: { per_page: 100 } });
    expect(theirs.body.skill_collections.map((c: { id: string }) => c.id)).not.toContain(id);
    // The other workspace may use the same name.
    expect((await service.call('POST', BASE, { key: otherKey, body: { name, files: [] } })).status).toBe(201);
  });
});

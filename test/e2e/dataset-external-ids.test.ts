import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * External ids of dataset groups through the local gateway: the `external_ids` of a group create, which
 * succeed or fail with the create as one, the attach / list / detach endpoints, the group's mappings on
 * GET /datasets, and workspace isolation.
 */
let service: TestService;
let otherKey: string;

type Mapping = { source: string; external_id: string };

const GROUPS = '/api/public/v2/dataset-groups';
const path = (groupId: number) => `${GROUPS}/${groupId}/external-ids`;
const mappingPath = (groupId: number, mapping: Mapping) =>
  `${path(groupId)}/${encodeURIComponent(mapping.source)}/${encodeURIComponent(mapping.external_id)}`;

const sorted = (mappings: Mapping[]) =>
  [...mappings].sort((x, y) => x.external_id.localeCompare(y.external_id));

let seq = 0;
const uniqueName = (prefix: string) => `${prefix}-${++seq}`;

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('other');
  // Reserve the id blocks, so that later counts see only what a request wrote.
  await createGroup('warm-up');
});
afterAll(() => service?.stop());

async function createGroup(name: string, externalIds?: unknown[], key?: string) {
  const answer = await service.call('POST', GROUPS, { body: { name, external_ids: externalIds }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

const attach = (groupId: number, body: unknown, key?: string) =>
  service.call('POST', path(groupId), { body, key });

async function list(groupId: number) {
  const answer = await service.call('GET', path(groupId));
  expect(answer.status).toBe(200);
  return answer.body.external_ids;
}

describe('external_ids on POST /api/public/v2/dataset-groups', () => {
  it('attaches them with the group and answers them (each pair once) on the group and its draft', async () => {
    const a = { source: 'crm', external_id: 'set-A' };
    const b = { source: 'notion', external_id: 'page/7' };

    const created = await createGroup(uniqueName('with-xids'), [a, b, a]);

    expect(created.external_ids).toEqual([a, b]);
    expect(created.dataset.external_ids).toEqual([a, b]);
    // Claimed at once, so listed in either order.
    expect(sorted(await list(created.dataset_group.id))).toEqual([b, a]);
    const listed = await service.call('GET', '/api/public/v2/datasets', {
      query: { dataset_group_id: created.dataset_group.id },
    });
    expect(listed.body.datasets.map((d: { external_ids: Mapping[] }) => sorted(d.external_ids))).toEqual([
      [b, a],
    ]);
  });

  it('answers 409 for a mapping of another group and keeps nothing of the create', async () => {
    const owner = await createGroup(uniqueName('xid-owner'), [{ source: 'crm', external_id: 'TAKEN' }]);
    const name = uniqueName('xid-loser');

    const answer = await service.rejected('POST', GROUPS, {
      body: {
        name,
        external_ids: [
          { source: 'crm', external_id: 'FREE' },
          { source: 'crm', external_id: 'TAKEN' },
        ],
      },
    });

    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('external_id_conflict');
    expect(await list(owner.dataset_group.id)).toEqual([{ source: 'crm', external_id: 'TAKEN' }]);
    // The name and FREE were not kept: a group of that name may take FREE.
    const retry = await createGroup(name, [{ source: 'crm', external_id: 'FREE' }]);
    expect(retry.external_ids).toEqual([{ source: 'crm', external_id: 'FREE' }]);
  });

  it('releases the mappings when the name is taken (409)', async () => {
    const name = uniqueName('xid-name');
    await createGroup(name);
    const mapping = { source: 'crm', external_id: 'name-taken' };

    const answer = await service.rejected('POST', GROUPS, { body: { name, external_ids: [mapping] } });

    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('name_taken');
    expect((await createGroup(uniqueName('xid-after'), [mapping])).external_ids).toEqual([mapping]);
  });

  it('rejects out-of-bounds mappings with a 422', async () => {
    const answer = await service.rejected('POST', GROUPS, {
      body: { name: uniqueName('xid-bounds'), external_ids: [{ source: 's', external_id: 'x'.repeat(513) }] },
    });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'external_ids', 0, 'external_id']);
  });
});

describe('/api/public/v2/dataset-groups/{dataset_group_id}/external-ids', () => {
  it('attaches (201, idempotent for the group), lists, and 409s for another group, which keeps nothing', async () => {
    const group = (await createGroup(uniqueName('attach'))).dataset_group.id;
    const other = (await createGroup(uniqueName('attach-other'))).dataset_group.id;
    const mapping = { source: 'github', external_id: 'evals/support.csv' };

    const first = await attach(group, mapping);
    const again = await attach(group, mapping);
    const taken = await attach(other, mapping);

    expect(first.status).toBe(201);
    expect(first.body).toEqual({ success: true, external_id: mapping });
    expect(again.status).toBe(201);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ success: false, error: 'external_id_conflict' });
    expect(await list(group)).toEqual([mapping]);
    expect(await list(other)).toEqual([]);
  });

  it('detaches a mapping (200), 404s when it is not attached, and lets another group take it', async () => {
    const group = (await createGroup(uniqueName('detach'))).dataset_group.id;
    const taker = (await createGroup(uniqueName('detach-taker'))).dataset_group.id;
    const mapping = { source: 'notion', external_id: 'page/42 with spaces' };
    await attach(group, mapping);

    const answer = await service.call('DELETE', mappingPath(group, mapping));

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });
    expect(await list(group)).toEqual([]);
    expect((await service.call('DELETE', mappingPath(group, mapping))).status).toBe(404);
    expect((await attach(taker, mapping)).status).toBe(201);
  });

  it.each([
    ['an empty source', { source: '', external_id: 'x' }, 'source'],
    ['an external id of 513 characters', { source: 's', external_id: 'x'.repeat(513) }, 'external_id'],
    ['a missing external id', { source: 's' }, 'external_id'],
  ])('rejects %s with a 422', async (_, body, field) => {
    const group = (await createGroup(uniqueName('bounds'))).dataset_group.id;

    const answer = await service.rejected('POST', path(group), { body });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', field]);
  });

  it('answers 404 for an unknown group', async () => {
    const mapping = { source: 's', external_id: 'x' };
    expect((await service.rejected('POST', path(987_654_321), { body: mapping })).status).toBe(404);
    expect((await service.call('GET', path(987_654_321))).status).toBe(404);
    expect((await service.call('DELETE', mappingPath(987_654_321, mapping))).status).toBe(404);
  });
});

describe('workspace isolation', () => {
  it("answers 404 for another workspace's group and keeps mappings apart per workspace", async () => {
    const mapping = { source: 'crm', external_id: 'shared-pair' };
    const theirs = (await createGroup(uniqueName('theirs'), [mapping], otherKey)).dataset_group.id;

    expect((await service.rejected('POST', path(theirs), { body: mapping })).status).toBe(404);
    expect((await service.call('GET', path(theirs))).status).toBe(404);
    expect((await service.rejected('DELETE', mappingPath(theirs, mapping))).status).toBe(404);
    // The same pair is free in this workspace.
    const ours = await createGroup(uniqueName('ours'), [mapping]);
    expect(ours.external_ids).toEqual([mapping]);
    const listed = await service.call('GET', path(theirs), { key: otherKey });
    expect(listed.body.external_ids).toEqual([mapping]);
  });
});

describe('GET /api/public/v2/datasets by external id', () => {
  const DATASETS = '/api/public/v2/datasets';
  const listBy = (query: Record<string, string | number>, key?: string) =>
    service.call('GET', DATASETS, { query, key });

  it('lists only the datasets of the group that has the mapping', async () => {
    const mapping = { source: 'crm', external_id: uniqueName('list-by') };
    const owner = await createGroup(uniqueName('owner'), [mapping]);
    await createGroup(uniqueName('bystander'), [{ source: 'crm', external_id: uniqueName('other') }]);

    const answer = await listBy({ external_source: mapping.source, external_id: mapping.external_id });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 1, pages: 1 });
    expect(answer.body.datasets.map((d: { id: number }) => d.id)).toEqual([owner.dataset.id]);
    expect(answer.body.datasets[0].external_ids).toEqual([mapping]);
  });

  it('lists nothing for a mapping no group has, one of another workspace, or another group than asked', async () => {
    const mapping = { source: 'crm', external_id: uniqueName('theirs') };
    await createGroup(uniqueName('theirs'), [mapping], otherKey);
    const mine = await createGroup(uniqueName('mine'), [{ source: 'crm', external_id: uniqueName('mine') }]);
    const other = await createGroup(uniqueName('other group'));
    const query = { external_source: 'crm', external_id: mine.external_ids[0].external_id };

    const unknown = await listBy({ external_source: 'crm', external_id: 'never-attached' });
    const foreign = await listBy({ external_source: mapping.source, external_id: mapping.external_id });
    const mismatch = await listBy({ ...query, dataset_group_id: other.dataset_group.id });
    const match = await listBy({ ...query, dataset_group_id: mine.dataset_group.id });

    for (const answer of [unknown, foreign, mismatch]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ datasets: [], total: 0 });
    }
    expect(match.body.total).toBe(1);
  });

  it.each([
    [{ external_source: 'crm' }, 'external_id'],
    [{ external_id: 'x' }, 'external_source'],
  ])('answers 422 for %j alone', async (query, missing) => {
    const answer = await service.rejected('GET', DATASETS, { query });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', missing]);
  });

  it("answers 400 for another workspace's workspace_id, and takes the key's own", async () => {
    const foreign = await service.rejected('GET', DATASETS, { query: { workspace_id: 999_999 } });
    const own = await listBy({ workspace_id: service.workspaceId, per_page: 1 });

    expect(foreign).toMatchObject({ status: 400, body: { error: 'invalid_workspace' } });
    expect(own.status).toBe(200);
  });

  it('accepts the prompt, label and report filters of the reference, and ignores them', async () => {
    const all = await listBy({ per_page: 100 });
    const filtered = await listBy({ per_page: 100, prompt_id: 1, prompt_version_id: 2, report_id: 3 });
    const bad = await service.rejected('GET', DATASETS, { query: { prompt_id: 'abc' } });

    expect(filtered.body.total).toBe(all.body.total);
    expect(bad.status).toBe(422);
  });
});

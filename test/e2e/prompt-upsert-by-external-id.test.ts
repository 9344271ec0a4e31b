import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publish, publishBody, uniqueName } from '#test/support/prompts.ts';

/**
 * PUT /prompt-templates/by-external-id/{source}/{external_id} through the local gateway: create with the
 * mapping (201), then new versions of the mapped template (200), and nothing written when refused.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const url = (source: string, externalId: string) =>
  `/prompt-templates/by-external-id/${encodeURIComponent(source)}/${encodeURIComponent(externalId)}`;
const mappings = async (templateId: number) =>
  (await service.call('GET', `/prompt-templates/${templateId}/external-ids`)).body.external_ids;

describe('PUT /prompt-templates/by-external-id/{source}/{external_id}', () => {
  it('creates the template with the mapping (201), then publishes new versions of it (200)', async () => {
    const name = uniqueName('upsert');
    const externalId = uniqueName('repo/prompts#');
    const created = await service.call('PUT', url('github', externalId), {
      body: publishBody(name, completion('v1'), { release_labels: ['prod'] }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      prompt_name: name,
      version_number: 1,
      release_labels: ['prod'],
      external_ids: [{ source: 'github', external_id: externalId }],
    });

    // The mapping names the template: the body's prompt_name is not read.
    const again = await service.call('PUT', url('github', externalId), {
      body: publishBody(uniqueName('ignored'), completion('v2')),
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, prompt_name: name, version_number: 2 });
    const latest = await service.call('GET', `/prompt-templates/${name}`);
    expect(latest.body.prompt_template.content[0].text).toBe('v2');
    expect(await mappings(created.body.id)).toEqual([{ source: 'github', external_id: externalId }]);
  });

  it('attaches the mapping to an existing template of the body name and publishes a new version (200)', async () => {
    const name = uniqueName('upsert-existing');
    const existing = await publish(service, name);
    const externalId = uniqueName('ext');
    const answer = await service.call('PUT', url('crm', externalId), { body: publishBody(name) });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: existing.id, version_number: 2 });
    expect(await mappings(existing.id)).toEqual([{ source: 'crm', external_id: externalId }]);
  });

  it('keeps the body external_ids beside the path mapping; a body mapping held elsewhere is a 409 that writes nothing', async () => {
    const other = await publish(service, uniqueName('holder'), undefined, {
      external_ids: [{ source: 'crm', external_id: 'held' }],
    });
    const name = uniqueName('upsert-conflict');
    const externalId = uniqueName('path');
    const refused = await service.rejected('PUT', url('crm', externalId), {
      body: publishBody(name, undefined, { external_ids: [{ source: 'crm', external_id: 'held' }] }),
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('external_id_conflict');
    expect((await service.call('GET', `/prompt-templates/${name}`)).status).toBe(404);
    expect(await mappings(other.id)).toEqual([{ source: 'crm', external_id: 'held' }]);

    const extra = { source: 'crm', external_id: uniqueName('extra') };
    const created = await service.call('PUT', url('crm', externalId), {
      body: publishBody(name, undefined, { external_ids: [extra] }),
    });
    expect(created.status).toBe(201);
    expect(created.body.external_ids).toEqual(
      expect.arrayContaining([extra, { source: 'crm', external_id: externalId }]),
    );
  });

  it('makes concurrent first PUTs of one mapping under different names one template', async () => {
    const externalId = uniqueName('race');
    const names = Array.from({ length: 5 }, (_, i) => uniqueName(`race-${i}`));
    const answers = await Promise.all(
      names.map((name) => service.call('PUT', url('ci', externalId), { body: publishBody(name) })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((answer) => answer.body.id));
    expect(ids.size).toBe(1);
    expect(answers.map((answer) => answer.body.version_number).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses bad input (422), a read-only key (403) and another workspace sees nothing of the mapping', async () => {
    const name = uniqueName('upsert-refused');
    const externalId = uniqueName('refused');
    expect(
      (await service.rejected('PUT', url('crm', externalId), { body: { prompt_template: {} } })).status,
    ).toBe(422);
    expect(
      (
        await service.rejected('PUT', `/prompt-templates/by-external-id/crm/${'x'.repeat(513)}`, {
          body: publishBody(name),
        })
      ).status,
    ).toBe(422);
    const readOnly = await service.keyWithPermissions({ prompts: 'read' });
    expect(
      (await service.rejected('PUT', url('crm', externalId), { body: publishBody(name), key: readOnly }))
        .status,
    ).toBe(403);

    const mine = await service.call('PUT', url('crm', externalId), { body: publishBody(name) });
    expect(mine.status).toBe(201);
    // Another workspace's PUT of the same pair creates its own template: mappings are per workspace.
    const otherKey = await service.otherWorkspaceKey('upsert-other');
    const theirs = await service.call('PUT', url('crm', externalId), {
      body: publishBody(name),
      key: otherKey,
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });
});

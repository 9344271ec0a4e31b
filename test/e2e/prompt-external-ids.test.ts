import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, publishBody, uniqueName } from '#test/support/prompts.ts';

/**
 * External ids of prompt templates through the local gateway: attach, list, detach, and the
 * `external_ids` of a publish, which succeed or fail with the publish as one.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const path = (templateId: number) => `/prompt-templates/${templateId}/external-ids`;
const attach = (templateId: number, body: unknown) => service.call('POST', path(templateId), { body });
const list = async (templateId: number) => (await service.call('GET', path(templateId))).body.external_ids;

describe('POST /prompt-templates/{prompt_template_id}/external-ids', () => {
  it('attaches a mapping (201) and is idempotent for the same template', async () => {
    const { id } = await publish(service, uniqueName('xid'));
    const mapping = { source: 'github', external_id: 'repo/prompts#12' };
    const first = await attach(id, mapping);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ success: true, external_id: mapping });
    const again = await attach(id, mapping);
    expect(again.status).toBe(201);
    expect(await list(id)).toEqual([mapping]);
  });

  it('answers 409 when the mapping belongs to another template, which keeps it', async () => {
    const owner = await publish(service, uniqueName('owner'));
    const other = await publish(service, uniqueName('other'));
    const mapping = { source: 'jira', external_id: 'PROMPT-1' };
    await attach(owner.id, mapping);
    const response = await attach(other.id, mapping);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ success: false, error: 'external_id_conflict' });
    expect(await list(owner.id)).toEqual([mapping]);
    expect(await list(other.id)).toEqual([]);
  });

  it('changes nothing a client can see when it answers 409', async () => {
    const owner = await publish(service, uniqueName('held'));
    const name = uniqueName('refused');
    const other = await publish(service, name);
    const mapping = { source: 'jira', external_id: uniqueName('PROMPT') };
    await attach(owner.id, mapping);
    const seen = async () =>
      (await service.call('GET', '/prompt-templates', { query: { name } })).body.items[0];
    const before = await seen();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await service.rejected('POST', path(other.id), { body: mapping });
    expect(response.status).toBe(409);
    expect(await seen()).toEqual(before);
    expect(await list(other.id)).toEqual([]);
  });

  it.each([
    ['an empty source', { source: '', external_id: 'x' }, 'source'],
    ['a source of 129 characters', { source: 's'.repeat(129), external_id: 'x' }, 'source'],
    ['an empty external id', { source: 's', external_id: '' }, 'external_id'],
    ['an external id of 513 characters', { source: 's', external_id: 'x'.repeat(513) }, 'external_id'],
    ['a missing external id', { source: 's' }, 'external_id'],
  ])('rejects %s with a 422', async (_, body, field) => {
    const { id } = await publish(service, uniqueName('bounds'));
    const response = await attach(id, body);
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', field]);
  });

  it('accepts the longest mapping allowed (128 and 512 characters)', async () => {
    const { id } = await publish(service, uniqueName('longest'));
    const mapping = { source: 'ß'.repeat(128), external_id: '🙂'.repeat(512) };
    expect((await attach(id, mapping)).status).toBe(201);
    expect(await list(id)).toEqual([mapping]);
  });

  it('answers 404 for an unknown template', async () => {
    expect((await attach(987_654_321, { source: 's', external_id: 'x' })).status).toBe(404);
    expect((await service.call('GET', path(987_654_321))).status).toBe(404);
  });
});

describe('DELETE /prompt-templates/{prompt_template_id}/external-ids/{source}/{external_id}', () => {
  it('detaches a mapping, which another template may then take', async () => {
    const first = await publish(service, uniqueName('detach'));
    const second = await publish(service, uniqueName('taker'));
    const mapping = { source: 'notion', external_id: 'page/42 with spaces' };
    await attach(first.id, mapping);
    const url = `${path(first.id)}/${encodeURIComponent(mapping.source)}/${encodeURIComponent(mapping.external_id)}`;
    const response = await service.call('DELETE', url);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(await list(first.id)).toEqual([]);
    expect((await service.call('DELETE', url)).status).toBe(404);
    expect((await attach(second.id, mapping)).status).toBe(201);
  });
});

describe('external_ids on publish', () => {
  it('attaches them with the version and lists every mapping of the template in the answer', async () => {
    const name = uniqueName('with-xids');
    const created = await publish(service, name, undefined, {
      external_ids: [
        { source: 'crm', external_id: 'A' },
        { source: 'crm', external_id: 'A' },
      ],
    });
    expect(created.external_ids).toEqual([{ source: 'crm', external_id: 'A' }]);
    const next = await publish(service, name, undefined, {
      external_ids: [{ source: 'crm', external_id: 'B' }],
    });
    expect(next.external_ids).toEqual([
      { source: 'crm', external_id: 'A' },
      { source: 'crm', external_id: 'B' },
    ]);
    // Publishing again with a mapping the template already has is fine.
    expect(
      (await publish(service, name, undefined, { external_ids: [{ source: 'crm', external_id: 'A' }] }))
        .version_number,
    ).toBe(3);
  });

  it('answers 409 for a mapping of another template and keeps nothing of a first publish', async () => {
    const owner = await publish(service, uniqueName('xid-owner'), undefined, {
      external_ids: [{ source: 'crm', external_id: 'TAKEN' }],
    });
    const before = await service.countItems();
    const name = uniqueName('xid-loser');
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(name, undefined, {
        release_labels: ['prod'],
        external_ids: [
          { source: 'crm', external_id: 'FREE' },
          { source: 'crm', external_id: 'TAKEN' },
        ],
      }),
    });
    expect(response.status).toBe(409);
    expect(await service.countItems()).toBe(before);
    expect((await service.call('GET', `/prompt-templates/${name}`)).status).toBe(404);
    expect(await list(owner.id)).toEqual([{ source: 'crm', external_id: 'TAKEN' }]);
    // FREE was released: another template can take it.
    const taker = await publish(service, uniqueName('xid-taker'), undefined, {
      external_ids: [{ source: 'crm', external_id: 'FREE' }],
    });
    expect(taker.external_ids).toEqual([{ source: 'crm', external_id: 'FREE' }]);
  });

  it('answers 409 on a new version of an existing template and adds no version', async () => {
    await publish(service, uniqueName('xid-holder'), undefined, {
      external_ids: [{ source: 'crm', external_id: 'HELD' }],
    });
    const name = uniqueName('xid-existing');
    await publish(service, name);
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(name, undefined, { external_ids: [{ source: 'crm', external_id: 'HELD' }] }),
    });
    expect(response.status).toBe(409);
    expect((await service.call('GET', `/prompt-templates/${name}`)).body.version).toBe(1);
  });

  it('rejects out-of-bounds mappings with a 422', async () => {
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(uniqueName('xid-bounds'), undefined, {
        external_ids: [{ source: 's'.repeat(129), external_id: 'x' }],
      }),
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'external_ids', 0, 'source']);
  });
});

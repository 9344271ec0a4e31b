import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as externalIds from '#shared/external-ids/external-ids.ts';
import { templateExternalIds } from '#shared/prompts/external-ids.ts';
import * as read from '#shared/prompts/lookup.ts';
import * as repository from '#shared/prompts/repository.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publishDirect, uniqueName } from '#test/support/prompts.ts';

/**
 * Publishing against dynalite, through the domain functions: version numbering under races, label
 * moves by racing publishes, what a half-done publish leaves visible, and external-id claims.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
});
afterAll(() => service?.stop());

const publish = (name: string, text: string, extra: Record<string, unknown> = {}) =>
  publishDirect(ws, name, completion(text), extra);

/** Every version item of a template, straight from the table. */
async function storedVersions(name: string) {
  const versions = [];
  for (let n = 1; ; n++) {
    const version = await repository.getVersion(ws, name, n);
    if (!version) return versions;
    versions.push(version);
  }
}

describe('version numbers under concurrency', () => {
  it('gives 20 concurrent first publishes of one name versions 1..20 of one template, each once', async () => {
    const name = uniqueName('race-new');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => publish(name, `text ${i}`)));

    expect(results.map((r) => r.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const templateIds = new Set(results.map((r) => r.id));
    expect(templateIds.size).toBe(1);
    const [templateId] = templateIds;
    // Each answer's version holds that publish's own text.
    const stored = await storedVersions(name);
    expect(stored).toHaveLength(20);
    for (const result of results) {
      expect(stored[result.version_number - 1]?.prompt_template).toEqual(result.prompt_template);
      expect(stored[result.version_number - 1]?.prompt_id).toBe(templateId);
    }
    const latest = await read.readTemplate(ws, String(templateId), {});
    expect(latest.version.number).toBe(20);
    const heads = (await repository.listHeads(ws)).filter((head) => head.name === name);
    expect(heads).toHaveLength(1);
  });

  it('gives 10 concurrent first publishes with the same external ids one template, versions 1..10', async () => {
    const name = uniqueName('race-xids');
    const mappings = [
      { source: 'crm', external_id: `${name}-a` },
      { source: 'git', external_id: `${name}-b` },
    ];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        // Each lists the mappings in its own order: the claim order must not depend on it.
        publish(name, `text ${i}`, { external_ids: i % 2 ? mappings : [...mappings].reverse() }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const results = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.map((r) => r.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    const [templateId] = results.map((r) => r.id);
    for (const mapping of mappings) {
      expect(await externalIds.findExternalIdOwner(ws, 'prompt_template', mapping)).toBe(templateId);
    }
    expect((await storedVersions(name)).every((version) => version.prompt_id === templateId)).toBe(true);
  });

  it('leaves a label moved by 20 racing publishes on the highest version, with one stable id', async () => {
    const name = uniqueName('race-label');
    await publish(name, 'base', { release_labels: ['prod'] });
    const { labels: before } = (await repository.getHead(ws, name))!;

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        publish(name, `text ${i}`, { release_labels: ['prod', 'canary'] }),
      ),
    );
    expect(results.map((r) => r.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const head = (await repository.getHead(ws, name))!;
    expect(head.labels.prod).toMatchObject({ id: before.prod?.id, version_number: 21 });
    expect(head.labels.canary?.version_number).toBe(21);
    // The publish of version 21 reports both labels; a label never ends below a version that claims it.
    const top = results.find((r) => r.version_number === 21);
    expect(top?.release_labels).toEqual(['prod', 'canary']);
    // Every label id readers see resolves back to its label.
    for (const [label, entry] of Object.entries(head.labels)) {
      expect(await repository.getLabelPointer(ws, entry.id)).toEqual({ prompt_name: name, label });
    }
  });
});

describe('a publish interrupted between its writes', () => {
  it('keeps a version without a head invisible, and the next publish adopts its template id', async () => {
    const name = uniqueName('crashed');
    // What a publish that stopped after claiming version 1 leaves behind: the version item only.
    await repository.putVersion(ws, {
      id: 77_000_001,
      prompt_id: 77_000_002,
      prompt_name: name,
      number: 1,
      prompt_template: completion('orphan') as never,
      metadata: null,
      commit_message: null,
      created_at: Date.now(),
    });
    await expect(read.readTemplate(ws, name, {})).rejects.toMatchObject({ status: 404 });

    const next = await publish(name, 'after the crash');
    expect(next).toMatchObject({ id: 77_000_002, version_number: 2 });
    expect((await read.readTemplate(ws, '77000002', {})).version.number).toBe(2);
  });

  it('answers 404 for the id of a publish that lost the race to create a template', async () => {
    const name = uniqueName('lost-race');
    const winner = await publish(name, 'winner');
    // The loser wrote its id pointer before learning another id won.
    await repository.putPointers(ws, { template: { id: 77_000_010, name }, labels: [] });
    await expect(read.readTemplate(ws, '77000010', {})).rejects.toMatchObject({ status: 404 });
    expect((await read.readTemplate(ws, String(winner.id), {})).head.name).toBe(name);
  });
});

describe('external ids left by a first publish that crashed', () => {
  afterEach(() => vi.restoreAllMocks());
  const longAgo = () => Date.now() - externalIds.CLAIM_GRACE_MS - 1000;
  /** A mapping as a crashed first publish leaves it: claimed for a template id that never came to exist. */
  const claimAt = (at: number, templateId: number, externalId: string, ownerName?: string) => {
    vi.spyOn(Date, 'now').mockReturnValueOnce(at);
    return externalIds.claimExternalIds(
      ws,
      'prompt_template',
      templateId,
      [{ source: 'crash', external_id: externalId }],
      {
        ownerName,
      },
    );
  };
  const mapping = (externalId: string) => ({ source: 'crash', external_id: externalId });

  it('lets another template take a mapping of a template that never came to exist, once it is stale', async () => {
    const live = await publish(uniqueName('live'), 'live');
    const stale = uniqueName('stale');
    const fresh = uniqueName('fresh');
    const owned = uniqueName('owned');
    await claimAt(longAgo(), 88_000_001, stale);
    await claimAt(Date.now(), 88_000_002, fresh);
    await claimAt(longAgo(), live.id, owned);

    const taker = await publish(uniqueName('taker'), 'takes', { external_ids: [mapping(stale)] });
    expect(await externalIds.findExternalIdOwner(ws, 'prompt_template', mapping(stale))).toBe(taker.id);
    expect(taker.external_ids).toEqual([mapping(stale)]);
    // Within the grace period the publish that claimed it may still be running; a live owner keeps it.
    await expect(publish(uniqueName('early'), 'x', { external_ids: [mapping(fresh)] })).rejects.toMatchObject(
      {
        status: 409,
      },
    );
    await expect(publish(uniqueName('thief'), 'x', { external_ids: [mapping(owned)] })).rejects.toMatchObject(
      {
        status: 409,
      },
    );
    expect(await externalIds.findExternalIdOwner(ws, 'prompt_template', mapping(owned))).toBe(live.id);
  });

  it('lets the attach endpoint take a stale mapping of a template that never came to exist', async () => {
    const stale = uniqueName('stale-attach');
    await claimAt(longAgo(), 88_000_003, stale);
    const template = await publish(uniqueName('attacher'), 'attaches');
    await templateExternalIds.attach(ws, template.id, mapping(stale));
    expect(await externalIds.findExternalIdOwner(ws, 'prompt_template', mapping(stale))).toBe(template.id);
  });

  it('makes a retry of the crashed first publish the template its mappings were claimed for', async () => {
    const name = uniqueName('retried');
    const externalId = uniqueName('retry');
    await claimAt(Date.now(), 88_000_004, externalId, name);
    const retried = await publish(name, 'again', { external_ids: [mapping(externalId)] });
    expect(retried).toMatchObject({ id: 88_000_004, version_number: 1, external_ids: [mapping(externalId)] });
    expect((await read.readTemplate(ws, '88000004', {})).head.name).toBe(name);
  });
});

describe('external id claims', () => {
  it('claims all mappings or none: a conflict releases the ones this call created, not older ones', async () => {
    const { claimExternalIds, attachExternalId, findExternalIdOwner } = externalIds;
    await attachExternalId(ws, 'prompt_template', 1001, { source: 's', external_id: 'theirs' });
    await attachExternalId(ws, 'prompt_template', 1002, { source: 's', external_id: 'mine-already' });

    await expect(
      claimExternalIds(ws, 'prompt_template', 1002, [
        { source: 's', external_id: 'new-1' },
        { source: 's', external_id: 'mine-already' },
        { source: 's', external_id: 'theirs' },
        { source: 's', external_id: 'new-2' },
      ]),
    ).rejects.toMatchObject({ status: 409 });
    expect(
      await findExternalIdOwner(ws, 'prompt_template', { source: 's', external_id: 'new-1' }),
    ).toBeUndefined();
    expect(
      await findExternalIdOwner(ws, 'prompt_template', { source: 's', external_id: 'new-2' }),
    ).toBeUndefined();
    expect(
      await findExternalIdOwner(ws, 'prompt_template', { source: 's', external_id: 'mine-already' }),
    ).toBe(1002);
    expect(await findExternalIdOwner(ws, 'prompt_template', { source: 's', external_id: 'theirs' })).toBe(
      1001,
    );
  });

  it('keeps mappings of one entity type apart from another', async () => {
    const { attachExternalId, findExternalIdOwner } = externalIds;
    const mapping = { source: 'shared', external_id: 'same-pair' };
    await attachExternalId(ws, 'prompt_template', 2001, mapping);
    await attachExternalId(ws, 'tool', 3001, mapping);
    expect(await findExternalIdOwner(ws, 'prompt_template', mapping)).toBe(2001);
    expect(await findExternalIdOwner(ws, 'tool', mapping)).toBe(3001);
  });

  it('gives one of two racing attaches of a mapping to different templates a 409', async () => {
    const { attachExternalId } = externalIds;
    const mapping = { source: 'race', external_id: uniqueName('pair') };
    const outcomes = await Promise.allSettled([
      attachExternalId(ws, 'prompt_template', 4001, mapping),
      attachExternalId(ws, 'prompt_template', 4002, mapping),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([
      expect.objectContaining({ reason: expect.objectContaining({ status: 409 }) }),
    ]);
  });
});

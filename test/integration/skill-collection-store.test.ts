import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { skillMd } from '#test/support/skill-archives.ts';

/**
 * The skill-collection store against the local runtime: the existence check of the entity registry,
 * names under races and left-over name pointers, versions under races (dense, the losers a 409).
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/skill-collections';
const files = [{ path: 'triage/SKILL.md', content: skillMd('triage') }];
const create = (name: string) => service.call('POST', BASE, { body: { name, files } });

/** Writes a name pointer as a create that stopped after claiming the name would leave it. */
async function leftOverPointer(name: string, claimedAt: number) {
  const { dynamo, table } = await import('#shared/platform/dynamo.ts');
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { PK: `W#${ws}#SKN#${name}`, SK: 'SKN', collection_id: randomUUID(), claimed_at: claimedAt },
    }),
  );
}

describe('skill collection store', () => {
  it('exists in its workspace only, by UUID (the entity registry check)', async () => {
    const { findHeads } = await import('#shared/folder-contents/move.ts');
    const created = await create(uniqueName('exists'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.skill_collection.id as string;
    // A skill collection's id is a UUID string; found as a folder move finds it.
    const exists = async (workspaceId: number, id: string | number) =>
      (
        await findHeads(workspaceId, [{ kind: 'skill_collection', id, ref: 'entity' }], async () => 0)
      ).heads.has('entity');
    expect(await exists(ws, id)).toBe(true);
    expect(await exists(ws, id.toUpperCase())).toBe(true);
    expect(await exists(ws + 1_000_000, id)).toBe(false);
    expect(await exists(ws, randomUUID())).toBe(false);
    expect(await exists(ws, 12)).toBe(false);
    expect(await exists(ws, created.body.skill_collection.name)).toBe(false);
  });

  it('takes over a stale name pointer, but not one a create may still be finishing', async () => {
    const stale = uniqueName('stale');
    await leftOverPointer(stale, 0);
    expect((await create(stale)).status).toBe(201);
    const fresh = uniqueName('fresh');
    await leftOverPointer(fresh, Date.now());
    expect((await create(fresh)).status).toBe(409);
  });

  it('makes one collection of concurrent creates of one name; the others answer 409', async () => {
    const name = uniqueName('race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(name)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    const list = await service.call('GET', BASE, { query: { per_page: 100 } });
    expect(list.body.skill_collections.filter((c: { name: string }) => c.name === name)).toHaveLength(1);
  });

  it('keeps versions dense under concurrent versions: each either lands next or answers 409', async () => {
    const name = uniqueName('versions');
    expect((await create(name)).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        service.call('POST', `${BASE}/${name}/versions`, {
          body: { file_updates: [{ path: `notes/${i}.md`, content: `note ${i}` }] },
        }),
      ),
    );
    for (const answer of answers) expect([201, 409], JSON.stringify(answer.body)).toContain(answer.status);
    const numbers = answers
      .filter((answer) => answer.status === 201)
      .map((answer) => answer.body.version.number as number)
      .sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 2));
    const latest = await service.call('GET', `${BASE}/${name}`);
    expect(latest.body.version.number).toBe(numbers.length + 1);
    // Each landed version added its note to what the one before it held.
    expect(Object.keys(latest.body.files)).toHaveLength(numbers.length + 1);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as labels from '#shared/prompts/labels.ts';
import * as read from '#shared/prompts/lookup.ts';
import * as repository from '#shared/prompts/repository.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publishDirect, uniqueName } from '#test/support/prompts.ts';

/** Label moves and deletions against dynalite, through the domain functions, racing included. */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
});
afterAll(() => service?.stop());

const publish = (name: string, text: string, labels: string[] = []) =>
  publishDirect(ws, name, completion(text), { release_labels: labels });

let name: string;
let prodId: number;
beforeEach(async () => {
  name = uniqueName('moves');
  await publish(name, 'one', ['prod']);
  for (const text of ['two', 'three', 'four', 'five']) await publish(name, text);
  prodId = (await repository.getHead(ws, name))!.labels.prod!.id;
});

const labelVersion = async (label = 'prod') => (await read.readTemplate(ws, name, { label })).version.number;

describe('moving a label', () => {
  it('moves forward and back; readers by label follow at once', async () => {
    await labels.moveLabel(ws, prodId, 4);
    expect(await labelVersion()).toBe(4);
    await labels.moveLabel(ws, prodId, 2);
    expect(await labelVersion()).toBe(2);
  });

  it('lands 10 racing moves on one of the requested versions, keeping the label id', async () => {
    const targets = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5];
    const results = await Promise.all(targets.map((n) => labels.moveLabel(ws, prodId, n)));
    expect(results.every((label) => label.id === prodId)).toBe(true);
    const head = (await repository.getHead(ws, name))!;
    expect(targets).toContain(head.labels.prod?.version_number);
    expect(head.labels.prod?.id).toBe(prodId);
  });

  it('leaves the label in place when the version does not exist', async () => {
    await expect(labels.moveLabel(ws, prodId, 6)).rejects.toMatchObject({ status: 404 });
    expect(await labelVersion()).toBe(1);
  });

  it('cannot move a deleted label, even while its pointer item lingers', async () => {
    // Delete the label from the head only, as a deletion interrupted before removing its pointer would.
    const head = (await repository.getHead(ws, name))!;
    await repository.updateHead(ws, name, {
      updatedAt: Date.now(),
      remove: { name: 'prod', id: prodId },
    });
    expect(await repository.getLabelPointer(ws, prodId)).toBeDefined();
    await expect(labels.moveLabel(ws, prodId, 2)).rejects.toMatchObject({ status: 404 });
    await expect(labels.moveLabel(ws, prodId, 99)).rejects.toMatchObject({ status: 404 });
    await expect(labels.deleteLabel(ws, prodId)).rejects.toMatchObject({ status: 404 });
    expect((await repository.getHead(ws, name))!.labels).toEqual({});
    expect(head.labels.prod?.id).toBe(prodId);
  });

  it('never lets a move resurrect a label deleted and re-created under a new id', async () => {
    await labels.deleteLabel(ws, prodId);
    await publish(name, 'six', ['prod']);
    const recreated = (await repository.getHead(ws, name))!.labels.prod!;
    expect(recreated.id).not.toBe(prodId);
    await expect(labels.moveLabel(ws, prodId, 1)).rejects.toMatchObject({ status: 404 });
    expect(await labelVersion()).toBe(6);
  });

  it('keeps a publish and a racing move consistent: the label ends where one of them put it', async () => {
    const [published] = await Promise.all([publish(name, 'six', ['prod']), labels.moveLabel(ws, prodId, 2)]);
    expect(published.version_number).toBe(6);
    expect([2, 6]).toContain(await labelVersion());
    expect((await repository.getHead(ws, name))!.labels.prod?.id).toBe(prodId);
  });
});

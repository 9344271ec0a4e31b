import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENTITY_TYPES } from '#shared/platform/auth-context.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';

/**
 * A cascade delete lists what the subtree holds, then moves it to the root: an entity moved out of the
 * subtree in between (by another client) stays where that client put it. The listing is wrapped so a
 * move lands exactly between the two.
 */
const hooks = vi.hoisted(() => ({ afterListing: undefined as (() => Promise<void>) | undefined }));
vi.mock('#shared/folder-contents/entities.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#shared/folder-contents/entities.ts')>();
  return {
    ...original,
    entitiesByFolder: async (...args: Parameters<typeof original.entitiesByFolder>) => {
      const held = await original.entitiesByFolder(...args);
      const hook = hooks.afterListing;
      hooks.afterListing = undefined;
      await hook?.();
      return held;
    },
  };
});

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const createFolder = async (name: string): Promise<number> => {
  const answer = await service.call('POST', '/api/public/v2/folders', { body: { name } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.folder.id;
};
const movePrompt = async (id: number, folderId: number) => {
  const answer = await service.call('POST', '/api/public/v2/folders/entities', {
    body: { entities: [{ id, type: 'PROMPT' }], folder_id: folderId },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
};

describe('a cascade delete racing a move', () => {
  it('leaves an entity moved out of the subtree meanwhile in its new folder', async () => {
    const { deleteFolders } = await import('#shared/folder-contents/delete.ts');
    const doomed = await createFolder(uniqueName('doomed'));
    const kept = await createFolder(uniqueName('kept'));
    const prompt = (await publish(service, uniqueName('p'))).id as number;
    await movePrompt(prompt, doomed);

    hooks.afterListing = () => movePrompt(prompt, kept);
    const permissions = Object.fromEntries(ENTITY_TYPES.map((type) => [type, 'edit' as const]));
    const result = await deleteFolders({ workspaceId: service.workspaceId, permissions }, [doomed], true);

    expect(result).toEqual({ deleted: 1, movedToRoot: 0 });
    const listed = await service.call('GET', '/api/public/v2/folders/entities', {
      query: { folder_id: kept, filter_type: 'PROMPT' },
    });
    expect(listed.body.entities.map((entity: { id: number }) => entity.id)).toEqual([prompt]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';

/**
 * Folder name claims against the local table: a claim left by a create or move that stopped halfway
 * blocks the name while it may still be in flight, and is taken over once stale; a folder always holds
 * its own claim.
 */
let service: TestService;
let claims: typeof import('#shared/platform/name-claims.ts');
let keys: typeof import('#shared/folders/keys.ts');
let folders: typeof import('#shared/folders/folders.ts');
let items: typeof import('#shared/platform/items.ts');
beforeAll(async () => {
  service = await startTestService();
  claims = await import('#shared/platform/name-claims.ts');
  keys = await import('#shared/folders/keys.ts');
  folders = await import('#shared/folders/folders.ts');
  items = await import('#shared/platform/items.ts');
});
afterAll(() => service?.stop());

const leftClaim = (name: string, folderId: number, ageMs: number) =>
  items.putNewItem({
    ...keys.folderNameKey(service.workspaceId, null, name),
    folder_id: folderId,
    claimed_at: Date.now() - ageMs,
  });

describe('folder name claims', () => {
  it('respects a fresh claim of a folder not written yet, and takes over a stale one', async () => {
    const fresh = uniqueName('fresh');
    await leftClaim(fresh, 987_654_321, 0);
    await expect(folders.createFolder(service.workspaceId, { name: fresh })).rejects.toMatchObject({
      status: 409,
    });

    const stale = uniqueName('stale');
    await leftClaim(stale, 987_654_321, claims.NAME_CLAIM_GRACE_MS + 1000);
    const created = await folders.createFolder(service.workspaceId, { name: stale });
    expect(created.folder.name).toBe(stale);
    const claim = await items.getItem(keys.folderNameKey(service.workspaceId, null, stale));
    expect(claim?.folder_id).toBe(created.folder.id);
  });

  it('never takes over the claim of a folder that holds its name, however old', async () => {
    const name = uniqueName('held');
    const { folder } = await folders.createFolder(service.workspaceId, { name });
    await items.updateItem(keys.folderNameKey(service.workspaceId, null, name), {
      set: { claimed_at: 0 },
    });
    await expect(folders.createFolder(service.workspaceId, { name })).rejects.toMatchObject({ status: 409 });
    // A rename leaves the old claim to be released: the old name is free at once.
    const renamed = uniqueName('renamed');
    await folders.updateFolder(service.workspaceId, folder.id, { name: renamed });
    expect(await items.getItem(keys.folderNameKey(service.workspaceId, null, name))).toBeUndefined();
    expect((await items.getItem(keys.folderNameKey(service.workspaceId, null, renamed)))?.folder_id).toBe(
      folder.id,
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Folder listings have no pages, and every item carries its whole path: a deep tree of long names
 * makes an answer Lambda cannot return (6 MB). Such an answer is a 413 saying how to narrow it, never a
 * 5xx; a narrower listing of the same tree answers. One workspace holds the big tree (its own service).
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/folders';
const longName = (i: number) => `${i}-${'n'.repeat(250)}`;

async function createFolder(name: string, parentId: number | null): Promise<number> {
  const answer = await service.call('POST', BASE, { body: { name, parent_id: parentId } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.folder.id;
}

describe('folder listings over what Lambda can answer', () => {
  it('answer 413 naming how to narrow them, and answer when narrowed', async () => {
    // 100 levels, then 250 folders at the bottom: each of those carries a path of 100 long names.
    const chain: number[] = [];
    for (let depth = 0; depth < 100; depth++)
      chain.push(await createFolder(longName(depth), chain.at(-1) ?? null));
    const bottom = chain.at(-1)!;
    for (let start = 0; start < 250; start += 25)
      await Promise.all(
        Array.from({ length: 25 }, (_, i) => createFolder(longName(1000 + start + i), bottom)),
      );

    const folders = await service.call('GET', BASE);
    expect(folders.status, JSON.stringify(folders.body)).toBe(413);
    expect(folders.body).toMatchObject({ success: false, error: 'answer_too_large' });
    expect(folders.body.message).toContain('parent_id');
    const children = await service.call('GET', BASE, { query: { parent_id: chain[0]! } });
    expect(children.status).toBe(200);
    expect(children.body.folders.map((folder: { id: number }) => folder.id)).toEqual([chain[1]]);

    const entities = await service.call('GET', `${BASE}/entities`, { query: { flatten: true } });
    expect(entities.status, JSON.stringify(entities.body).slice(0, 300)).toBe(413);
    expect(entities.body).toMatchObject({ success: false, error: 'answer_too_large' });
    expect(entities.body.message).toContain('filter_type');
    const top = await service.call('GET', `${BASE}/entities`, { query: { folder_id: chain[0]! } });
    expect(top.status).toBe(200);
    expect(top.body.entities.map((entity: { id: number }) => entity.id)).toEqual([chain[1]]);
  });
});

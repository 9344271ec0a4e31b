import { expect } from 'vitest';
import type { TestService } from './local-service.ts';
import { uniqueName } from './prompts.ts';

/**
 * A new folder of the key's workspace (the test workspace without one), at the root or under
 * `parent_id`, made through the local gateway: its id. Entities are filed only under folders that
 * exist, so a test that puts one in a folder makes the folder first.
 */
export async function createFolder(
  service: TestService,
  { key, name = uniqueName('folder'), parent_id }: { key?: string; name?: string; parent_id?: number } = {},
): Promise<number> {
  const answer = await service.call('POST', '/api/public/v2/folders', { body: { name, parent_id }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.folder.id as number;
}

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';

/**
 * Skill collections at their edges, through the local gateway: reads of a collection larger than one
 * Lambda answer, and version paths (Unicode forms, moves onto files, files that are also folders).
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

const BASE = '/api/public/v2/skill-collections';
const at = (identifier: string, tail = '') => `${BASE}/${encodeURIComponent(identifier)}${tail}`;

async function create(name: string, files: Record<string, string>) {
  const files_ = Object.entries(files).map(([path, content]) => ({ path, content }));
  const answer = await service.call('POST', BASE, { body: { name, files: files_ } });
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
  return answer.body;
}
const addVersion = (identifier: string, body: Record<string, unknown>) =>
  service.call('POST', at(identifier, '/versions'), { body });

/** Text that barely compresses (base64 of random bytes), `bytes` long. */
const noise = (bytes: number) =>
  randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);

describe('a collection larger than one answer', () => {
  it('reads as JSON with the largest files left out and named, and as a ZIP past the limit is a 413, never a 502', async () => {
    const name = uniqueName('large');
    const first = noise(3_500_000);
    const second = noise(3_000_000);
    await create(name, { 'small.md': 'kept', 'big/one.md': first });
    expect((await addVersion(name, { file_updates: [{ path: 'big/two.md', content: second }] })).status).toBe(
      201,
    );

    const read = await service.call('GET', at(name));
    expect(read.status).toBe(200);
    expect(read.body.version.file_paths).toEqual(['big/one.md', 'big/two.md', 'small.md']);
    expect(read.body.files).toEqual({ 'big/two.md': second, 'small.md': 'kept' });
    expect(read.body.omitted_files).toEqual({ 'big/one.md': 3_500_000 });

    const zip = await service.call('GET', at(name), { query: { format: 'zip' } });
    expect(zip.status).toBe(413);
    expect(zip.body).toMatchObject({ success: false, error: 'payload_too_large' });
    expect(zip.body.message).toMatch(/ZIP of version 2 .* bytes; an answer holds at most/);

    // The version before still fits, and answers whole.
    const v1 = await service.call('GET', at(name), { query: { version: 1 } });
    expect(v1.body.files).toEqual({ 'big/one.md': first, 'small.md': 'kept' });
    expect(v1.body).not.toHaveProperty('omitted_files');
  });
});

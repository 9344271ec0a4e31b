import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { formBody, zipOf } from '#test/support/skill-archives.ts';

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

describe('version paths', () => {
  it('updates a file named in another Unicode form, as stored (NFC), instead of refusing a duplicate', async () => {
    const name = uniqueName('forms');
    await create(name, { 'caf\u00e9.md': 'one' });
    const version = await addVersion(name, { file_updates: [{ path: 'cafe\u0301.md', content: 'two' }] });
    expect(version.status, JSON.stringify(version.body)).toBe(201);
    expect((await service.call('GET', at(name))).body.files).toEqual({ 'caf\u00e9.md': 'two' });
    const moved = await addVersion(name, {
      moves: [{ old_path: 'cafe\u0301.md', new_path: 'cafe\u0301-2.md' }],
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(moved.body.version.file_paths).toEqual(['caf\u00e9-2.md']);
  });

  it('refuses a move onto an existing file (422, naming it) and a path updated twice (400), writing nothing', async () => {
    const name = uniqueName('onto');
    await create(name, { 'a.md': 'A', 'b.md': 'B' });
    const onto = await addVersion(name, { moves: [{ old_path: 'a.md', new_path: 'b.md' }] });
    expect(onto.status).toBe(422);
    expect(onto.body.detail[0]).toMatchObject({ loc: ['body', 'moves', 0, 'new_path'] });
    expect(onto.body.message).toMatch(/b\.md is already a file of the collection/);
    const chain = await addVersion(name, {
      moves: [
        { old_path: 'a.md', new_path: 'b.md' },
        { old_path: 'b.md', new_path: 'c.md' },
      ],
    });
    expect(chain.status).toBe(422);
    const twice = await addVersion(name, {
      file_updates: [
        { path: 'c.md', content: 'first' },
        { path: 'c.md', content: 'second' },
      ],
    });
    expect(twice).toMatchObject({ status: 400, body: { error: 'duplicate_file_path' } });
    const read = await service.call('GET', at(name));
    expect(read.body).toMatchObject({ version: { number: 1 }, files: { 'a.md': 'A', 'b.md': 'B' } });

    // A chain that frees each path before it is taken is fine.
    const freed = await addVersion(name, {
      moves: [
        { old_path: 'b.md', new_path: 'c.md' },
        { old_path: 'a.md', new_path: 'b.md' },
      ],
    });
    expect(freed.status).toBe(201);
    expect((await service.call('GET', at(name))).body.files).toEqual({ 'b.md': 'A', 'c.md': 'B' });
  });

  it('refuses a path that is also the folder of another (400), at create and in a version', async () => {
    const files = [
      { path: 'docs', content: 'a file' },
      { path: 'docs/guide.md', content: 'a file in a folder of that name' },
    ];
    const name = uniqueName('clash');
    const created = await service.call('POST', BASE, { body: { name, files } });
    expect(created).toMatchObject({ status: 400, body: { error: 'invalid_file_path' } });
    expect(created.body.message).toMatch(/"docs" is also the folder of "docs\/guide.md"/);
    expect((await service.call('GET', at(name))).status).toBe(404);

    await create(name, { docs: 'a file' });
    const version = await addVersion(name, { file_updates: [{ path: 'docs/guide.md', content: 'x' }] });
    expect(version).toMatchObject({ status: 400, body: { error: 'invalid_file_path' } });
  });
});

describe('multipart metadata', () => {
  it('refuses metadata whose files (or file_updates) is not a list (422) instead of dropping it for the archive', async () => {
    const name = uniqueName('meta');
    const zip = await zipOf({ 'x.md': 'x' });
    const created = await service.call(
      'POST',
      BASE,
      await formBody({ metadata: JSON.stringify({ name, files: 'oops' }) }, { field: 'archive', data: zip }),
    );
    expect(created.status).toBe(422);
    expect(created.body.detail[0].loc).toEqual(['body', 'files']);
    expect((await service.call('GET', at(name))).status).toBe(404);

    await create(name, { 'a.md': 'A' });
    const version = await service.call(
      'POST',
      at(name, '/versions'),
      await formBody(
        { metadata: JSON.stringify({ file_updates: { path: 'y.md' } }) },
        { field: 'zip', data: zip },
      ),
    );
    expect(version.status).toBe(422);
    expect((await service.call('GET', at(name))).body.version.number).toBe(1);
  });
});

describe('collection names', () => {
  it.each([
    ['..', 'must not be "." or ".."'],
    ['.', 'must not be "." or ".."'],
    ['line\nbreak', 'must not contain control characters'],
  ])(
    'refuses the name %j at create and rename (422), as a URL or an export could not use it',
    async (name, rule) => {
      const created = await service.call('POST', BASE, { body: { name, files: [] } });
      expect(created.status).toBe(422);
      expect(created.body.detail[0]).toMatchObject({ loc: ['body', 'name'], msg: rule });
      const { skill_collection } = await create(uniqueName('named'), {});
      const renamed = await service.call('PATCH', at(skill_collection.id), { body: { name } });
      expect(renamed.status).toBe(422);
      expect((await service.call('GET', at(skill_collection.id))).body.skill_collection.name).toBe(
        skill_collection.name,
      );
    },
  );
});

describe('the ZIP round trip', () => {
  it('gives back the same paths when every file sits in one folder that is not a skill, as a create and as a version', async () => {
    const files = { 'docs/a.md': 'A', 'docs/b.md': 'B' };
    const name = uniqueName('docs');
    const { skill_collection } = await create(name, files);
    const url = new URL(at(skill_collection.id), service.baseUrl);
    url.searchParams.set('format', 'zip');
    const response = await fetch(url, {
      headers: { 'X-API-KEY': service.apiKey, Accept: 'application/zip' },
    });
    expect(response.status).toBe(200);
    const zip = Buffer.from(await response.arrayBuffer());

    const copy = uniqueName('copy');
    const created = await service.call(
      'POST',
      BASE,
      await formBody({ metadata: JSON.stringify({ name: copy }) }, { field: 'archive', data: zip }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await service.call('GET', at(copy))).body.files).toEqual(files);

    // Sent back as a version of a collection that changed since, it restores those files where they were.
    await addVersion(name, { file_updates: [{ path: 'docs/a.md', content: 'changed' }] });
    const restored = await service.call(
      'POST',
      at(name, '/versions'),
      await formBody({}, { field: 'archive', data: zip }),
    );
    expect(restored.status, JSON.stringify(restored.body)).toBe(201);
    expect((await service.call('GET', at(name))).body.files).toEqual(files);
  });
});

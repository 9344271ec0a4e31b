import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSkillArchive } from '#shared/skills/archive.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { skillMd, zipOf } from '#test/support/skill-archives.ts';

/**
 * The PromptLayer SDK's skills API, unchanged, against the local gateway: publish from files and from
 * a ZIP (Uint8Array and Blob, sent as multipart part `files` + `json`), pull as JSON (latest, by
 * version, by label) and as a ZIP (an ArrayBuffer), update (a rename, then a version with file updates,
 * moves `{from, to}`, deletes, a release label and a provider) and a refusal surfaced as the SDK's
 * thrown message. Every field the SDK's types declare is checked for presence and type.
 */
let service: TestService;
let pl: PromptLayer;
beforeAll(async () => {
  service = await startTestService();
  pl = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
});
afterAll(async () => {
  await service?.stop();
});

const filesOf = (skill: string): Record<string, string> => ({
  [`${skill}/SKILL.md`]: skillMd(skill),
  [`${skill}/references/guide.md`]: '# Guide\n',
  'README.md': 'A collection.\n',
});
const asList = (files: Record<string, string>) =>
  Object.entries(files).map(([path, content]) => ({ path, content }));

/** The SDK's `SkillCollection` type: the fields it declares, typed as it declares them. */
function expectCollection(collection: unknown, name: string) {
  expect(collection).toMatchObject({
    id: expect.any(String),
    name,
    provider: expect.toSatisfy((value) => value === null || typeof value === 'string'),
    folder_id: expect.toSatisfy((value) => value === null || typeof value === 'number'),
    created_at: expect.any(String),
    updated_at: expect.any(String),
  });
}

/** The SDK's `SkillCollectionVersion` type. */
function expectVersion(version: unknown, number: number) {
  expect(version).toMatchObject({
    id: expect.any(String),
    version: number,
    provider: expect.toSatisfy((value) => value === null || typeof value === 'string'),
    release_label: expect.toSatisfy((value) => value === null || typeof value === 'string'),
    commit_message: expect.toSatisfy((value) => value === null || typeof value === 'string'),
    created_at: expect.any(String),
  });
}

describe('skills.publish', () => {
  it('publishes from files (JSON) and answers the collection and its version 1', async () => {
    const name = uniqueName('sdk-skills-files');
    const published = await pl.skills.publish({
      name,
      provider: 'claude_code',
      files: asList(filesOf('triage')),
      commitMessage: 'first',
    });
    expect(published?.success).toBe(true);
    expectCollection(published?.skill_collection, name);
    expect(published?.skill_collection.provider).toBe('claude_code');
    expectVersion(published?.version, 1);
    expect(published?.version).toMatchObject({ commit_message: 'first', provider: 'claude_code' });
  });

  it('publishes into a folder (folderId)', async () => {
    const folder = await service.call('POST', '/api/public/v2/folders', {
      body: { name: uniqueName('sdk-skills-folder') },
    });
    expect(folder.status, JSON.stringify(folder.body)).toBe(201);
    const folderId = folder.body.folder.id as number;
    const name = uniqueName('sdk-skills-in-folder');
    const published = await pl.skills.publish({
      name,
      provider: 'openai',
      folderId,
      files: asList(filesOf('triage')),
    });
    expect(published?.skill_collection.folder_id).toBe(folderId);
  });

  it.each([
    ['a Uint8Array', (zip: Buffer) => new Uint8Array(zip)],
    ['a Blob', (zip: Buffer) => new Blob([new Uint8Array(zip)], { type: 'application/zip' })],
    ['an ArrayBuffer', (zip: Buffer) => new Uint8Array(zip).buffer],
  ])('publishes from a ZIP given as %s (multipart part `files`)', async (_, source) => {
    const name = uniqueName('sdk-skills-zip');
    const files = filesOf('refunds');
    const published = await pl.skills.publish({
      name,
      provider: 'openai',
      zipFile: source(await zipOf(files)),
      fileName: 'export.zip',
      commitMessage: 'from a zip',
    });
    expectCollection(published?.skill_collection, name);
    expectVersion(published?.version, 1);
    const pulled = await pl.skills.pull(name);
    expect(pulled).toMatchObject({ files });
  });
});

describe('skills.pull', () => {
  it('pulls the latest, a version and a label as JSON, and the files as a ZIP', async () => {
    const name = uniqueName('sdk-skills-pull');
    const v1 = filesOf('triage');
    await pl.skills.publish({ name, provider: 'claude_code', files: asList(v1) });
    await pl.skills.update(name, {
      fileUpdates: [{ path: 'README.md', content: 'Second.\n' }],
      releaseLabel: 'production',
    });
    const v2 = { ...v1, 'README.md': 'Second.\n' };

    const latest = await pl.skills.pull(name);
    expect(latest).not.toBeInstanceOf(ArrayBuffer);
    const answer = latest as Exclude<typeof latest, ArrayBuffer | null>;
    expect(answer.success).toBe(true);
    expectCollection(answer.skill_collection, name);
    expectVersion(answer.version, 2);
    expect(answer.version?.release_label).toBe('production');
    expect(answer.files).toEqual(v2);

    expect(await pl.skills.pull(name, { version: 1 })).toMatchObject({ files: v1, version: { version: 1 } });
    expect(await pl.skills.pull(name, { label: 'production' })).toMatchObject({
      files: v2,
      version: { version: 2, release_label: 'production' },
    });

    const zip = await pl.skills.pull(name, { format: 'zip' });
    expect(zip).toBeInstanceOf(ArrayBuffer);
    const unzipped = await readSkillArchive(Buffer.from(zip as ArrayBuffer));
    expect(Object.fromEntries(unzipped.map(({ path, content }) => [path, content]))).toEqual(v2);
    const zipV1 = await pl.skills.pull(answer.skill_collection.id as string, { format: 'zip', version: 1 });
    const unzippedV1 = await readSkillArchive(Buffer.from(zipV1 as ArrayBuffer));
    expect(Object.fromEntries(unzippedV1.map(({ path, content }) => [path, content]))).toEqual(v1);
  });
});

describe('skills.update', () => {
  it('renames, then saves a version with updates, moves, deletes, a label and a provider', async () => {
    const name = uniqueName('sdk-skills-update');
    const renamed = `${name}-renamed`;
    const published = await pl.skills.publish({
      name,
      provider: 'claude_code',
      files: asList({ ...filesOf('triage'), 'notes/old.md': 'old\n', 'scratch.md': 'tmp\n' }),
    });
    const updated = await pl.skills.update(name, {
      name: renamed,
      fileUpdates: [
        { path: 'README.md', content: 'Updated.\n' },
        { path: 'triage/scripts/run.sh', content: 'echo run\n' },
      ],
      moves: [{ from: 'notes/old.md', to: 'notes/new.md' }],
      deletes: ['scratch.md'],
      commitMessage: 'rework',
      releaseLabel: 'staging',
      provider: 'openai',
    });
    expect(updated?.success).toBe(true);
    expectCollection(updated?.skill_collection, renamed);
    expect(updated?.skill_collection.id).toBe(published?.skill_collection.id);
    expect(updated?.skill_collection.provider).toBe('openai');
    expectVersion(updated?.version, 2);
    expect(updated?.version).toMatchObject({
      commit_message: 'rework',
      release_label: 'staging',
      provider: 'openai',
    });

    const pulled = await pl.skills.pull(renamed, { label: 'staging' });
    expect(pulled).toMatchObject({
      skill_collection: { name: renamed, provider: 'openai' },
      version: { version: 2, provider: 'openai' },
      files: {
        ...filesOf('triage'),
        'README.md': 'Updated.\n',
        'triage/scripts/run.sh': 'echo run\n',
        'notes/new.md': 'old\n',
      },
    });
    expect(Object.keys((pulled as { files: object }).files)).not.toContain('scratch.md');
    // The first version keeps its provider.
    expect(await pl.skills.pull(renamed, { version: 1 })).toMatchObject({
      version: { provider: 'claude_code' },
    });
  });

  it('renames alone: the SDK reads the collection back', async () => {
    const name = uniqueName('sdk-skills-rename');
    await pl.skills.publish({ name, provider: 'openclaw', files: asList(filesOf('triage')) });
    const updated = await pl.skills.update(name, { name: `${name}-2` });
    expectCollection(updated?.skill_collection, `${name}-2`);
  });

  it('changes the provider alone: a version with the same files', async () => {
    const name = uniqueName('sdk-skills-provider');
    const files = filesOf('triage');
    await pl.skills.publish({ name, provider: 'claude_code', files: asList(files) });
    const updated = await pl.skills.update(name, { provider: 'openclaw' });
    expect(updated?.skill_collection.provider).toBe('openclaw');
    expectVersion(updated?.version, 2);
    expect(await pl.skills.pull(name)).toMatchObject({
      files,
      version: { version: 2, provider: 'openclaw' },
    });
    // The same provider again changes nothing: refused, as a version without changes is.
    await expect(pl.skills.update(name, { provider: 'openclaw' })).rejects.toThrow(/changes no file/);
  });
});

describe('refusals', () => {
  it('surfaces our error message as the thrown error', async () => {
    const name = uniqueName('sdk-skills-taken');
    await pl.skills.publish({ name, provider: 'claude_code', files: asList(filesOf('triage')) });
    await expect(
      pl.skills.publish({ name, provider: 'claude_code', files: asList(filesOf('triage')) }),
    ).rejects.toThrow(`A skill collection named ${name} already exists`);
    await expect(pl.skills.pull(uniqueName('sdk-skills-missing'))).rejects.toThrow(/not found/i);
    // A label alone makes a version of the same files under it; nothing at all is refused.
    const labelled = await pl.skills.update(name, { releaseLabel: 'production' });
    expectVersion(labelled?.version, 2);
    expect(await pl.skills.pull(name, { label: 'production' })).toMatchObject({
      files: filesOf('triage'),
      version: { version: 2 },
    });
    await expect(pl.skills.update(name, { provider: 'claude_code' })).rejects.toThrow(
      'The version changes no file',
    );
    await expect(pl.skills.update(name, { moves: [{ from: 'nope.md', to: 'yes.md' }] })).rejects.toThrow(
      /nope\.md/,
    );
    const halfMove = await service.call('POST', `/api/public/v2/skill-collections/${name}/versions`, {
      body: { moves: [{ from: 'README.md' }] },
    });
    expect(halfMove.status).toBe(422);
    expect(halfMove.body.message).toContain('A move is {old_path, new_path} or {from, to}');
  });
});

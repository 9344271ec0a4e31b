import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import { readSkillArchive } from '#shared/skills/archive.ts';
import { writeSkillArchive } from '#shared/skills/archive-write.ts';
import { checkSkillFiles } from '#shared/skills/files.ts';
import {
  type ArchiveEntry,
  buildZip,
  declareSize,
  skillMd,
  zipOfZeros,
  zipWithName,
} from '#test/support/skill-archives.ts';

/**
 * ZIP archives of skill collections, crafted here: normal ones read into files (junk dropped, one top
 * folder and a provider prefix stripped), hostile ones refused with their status and a message naming
 * the entry, before anything is returned.
 */
async function refusal(zip: Buffer): Promise<{ status: number; message: string; error: string }> {
  try {
    await readSkillArchive(zip);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, message: error.message, error: error.code };
  }
  throw new Error('accepted');
}

const paths = async (entries: ArchiveEntry[]) =>
  (await readSkillArchive(await buildZip(entries))).map((f) => f.path);

describe('readSkillArchive: accepted archives', () => {
  it('reads the files of an archive as UTF-8 text', async () => {
    const files = await readSkillArchive(
      await buildZip([
        { path: 'triage/SKILL.md', data: skillMd('triage') },
        { path: 'triage/references/policy.md', data: 'Politique: café ☕' },
        { path: 'CLAUDE.md', data: '# Project', store: true },
      ]),
    );
    expect(files).toEqual([
      { path: 'triage/SKILL.md', content: skillMd('triage') },
      { path: 'triage/references/policy.md', content: 'Politique: café ☕' },
      { path: 'CLAUDE.md', content: '# Project' },
    ]);
  });

  it('skips directory entries and drops __MACOSX/ and .DS_Store', async () => {
    expect(
      await paths([
        { path: 'triage/', data: '' },
        { path: 'triage/SKILL.md', data: skillMd('triage') },
        { path: '__MACOSX/triage/._SKILL.md', data: Buffer.from([0, 5, 22, 7, 0xff]) },
        { path: 'triage/.DS_Store', data: Buffer.from([0, 0, 0, 1, 0xff]) },
        { path: '.DS_Store', data: Buffer.from([0xff]) },
      ]),
    ).toEqual(['triage/SKILL.md']);
  });

  it('strips one common top folder that is not itself a skill (an archive of a folder)', async () => {
    expect(
      await paths([
        { path: 'my-export/triage/SKILL.md', data: skillMd('triage') },
        { path: 'my-export/AGENTS.md', data: '# Agents' },
      ]),
    ).toEqual(['triage/SKILL.md', 'AGENTS.md']);
  });

  it('keeps a common top folder that is a skill (its SKILL.md is directly in it)', async () => {
    expect(
      await paths([
        { path: 'triage/SKILL.md', data: skillMd('triage') },
        { path: 'triage/scripts/run.py', data: 'print(1)' },
      ]),
    ).toEqual(['triage/SKILL.md', 'triage/scripts/run.py']);
  });

  it.each(['.claude', '.agents', '.openclaw'])(
    'strips the %s/ prefix of a provider export',
    async (prefix) => {
      expect(
        await paths([
          { path: `${prefix}/triage/SKILL.md`, data: skillMd('triage') },
          { path: `${prefix}/refunds/SKILL.md`, data: skillMd('refunds') },
        ]),
      ).toEqual(['triage/SKILL.md', 'refunds/SKILL.md']);
    },
  );

  it('strips a top folder and then a provider prefix inside it', async () => {
    expect(
      await paths([
        { path: 'download/.claude/triage/SKILL.md', data: skillMd('triage') },
        { path: 'download/.claude/triage/notes.md', data: 'n' },
      ]),
    ).toEqual(['triage/SKILL.md', 'triage/notes.md']);
  });

  it('normalises names to NFC, as JSON paths are', async () => {
    expect(await paths([{ path: 'cafe\u0301.md', data: 'x' }])).toEqual(['caf\u00e9.md']);
  });

  it('reads an empty archive as no files', async () => {
    expect(await readSkillArchive(await buildZip([]))).toEqual([]);
  });

  it('takes a 4 MiB file of zeros stored (ratio 1:1) and 100 files', async () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ path: `f${i}.md`, data: `file ${i}` }));
    expect(await paths(entries)).toHaveLength(100);
    const stored = await buildZip([{ path: 'zeros.txt', data: Buffer.alloc(4 * 1024 * 1024), store: true }]);
    expect((await readSkillArchive(stored))[0]!.content).toHaveLength(4 * 1024 * 1024);
  });
});

describe('readSkillArchive: hostile archives', () => {
  it('refuses a zip-slip name', async () => {
    expect(await refusal(await zipWithName('../../etc/evil.md'))).toEqual({
      status: 400,
      message: 'Invalid ZIP archive: invalid relative path: ../../etc/evil.md',
      error: 'invalid_archive',
    });
  });

  it.each([
    ['invalid UTF-8', [0x66, 0xc3, 0x28, 0xff, 0x2e, 0x6d, 0x64], '66c328ff2e6d64'],
    ['a CESU-8 surrogate', [0x61, 0xed, 0xa0, 0x80, 0x2e, 0x6d, 0x64], '61eda0802e6d64'],
  ])(
    'refuses a name flagged UTF-8 whose bytes are %s, naming the bytes, instead of storing U+FFFD',
    async (_, bytes, hex) => {
      const placeholder = 'x'.repeat(bytes.length);
      const zip = await buildZip([{ path: placeholder, data: 'text' }]);
      const hostile = Buffer.from(zip);
      for (let at = hostile.indexOf(placeholder); at !== -1; at = hostile.indexOf(placeholder, at + 1))
        Buffer.from(bytes).copy(hostile, at);
      const refused = await refusal(hostile);
      expect(refused).toMatchObject({ status: 400, error: 'invalid_file_path' });
      expect(refused.message).toContain(`its bytes are not valid UTF-8 (0x${hex})`);
    },
  );

  it('refuses an absolute name, and a drive letter', async () => {
    expect(await refusal(await zipWithName('/abs/evil.md'))).toEqual({
      status: 400,
      message: 'Invalid ZIP archive: absolute path: /abs/evil.md',
      error: 'invalid_archive',
    });
    expect((await refusal(await zipWithName('C:/evil.md'))).message).toBe(
      'Invalid ZIP archive: absolute path: C:/evil.md',
    );
  });

  it('refuses a backslash in a name rather than reading it as a folder', async () => {
    const zip = await zipWithName('a\\evil.md');
    expect(await refusal(zip)).toEqual({
      status: 400,
      message: 'Invalid ZIP archive: invalid characters in fileName: a\\evil.md',
      error: 'invalid_archive',
    });
  });

  it('refuses a name that breaks the path rules yauzl leaves to us (a control character)', async () => {
    expect(await refusal(await zipWithName('a\u0001b.md'))).toEqual({
      status: 400,
      message: 'Invalid file path "a\u0001b.md": it holds a control character',
      error: 'invalid_file_path',
    });
  });

  it('refuses a symbolic link entry', async () => {
    const zip = await buildZip([
      { path: 'triage/SKILL.md', data: skillMd('triage') },
      { path: 'triage/secrets.md', data: '/etc/passwd', mode: 0o120777 },
    ]);
    expect(await refusal(zip)).toEqual({
      status: 400,
      message: 'Archive entry "triage/secrets.md" is a symbolic link',
      error: 'invalid_archive',
    });
  });

  it('refuses a lying entry (declares 100 B, inflates to 50 MB) after inflating no more than a few KB', async () => {
    const zip = declareSize(await zipOfZeros('lie.md', 50 * 1024 * 1024), 'lie.md', 100);
    const result = await refusal(zip);
    expect(result).toMatchObject({ status: 400, error: 'invalid_archive' });
    expect(result.message).toMatch(
      /^Archive entry "lie.md" is corrupt: too many bytes in the stream\. expected 100\./,
    );
  });

  it('refuses 200 MB of zeros by its declared size, before inflating it', async () => {
    const zip = await zipOfZeros('zeros.md', 200 * 1024 * 1024);
    expect(zip.length).toBeLessThan(1024 * 1024);
    expect(await refusal(zip)).toEqual({
      status: 413,
      message: 'Archive entry "zeros.md" is 209715200 bytes; a file holds at most 5242880',
      error: 'payload_too_large',
    });
  });

  it('refuses an entry that hides its size (declares 0 bytes, inflates to 6 MiB) as corrupt', async () => {
    const zip = declareSize(await zipOfZeros('hidden.md', 6 * 1024 * 1024), 'hidden.md', 0);
    const result = await refusal(zip);
    expect(result.status).toBe(400);
    expect(result.message).toMatch(/^Archive entry "hidden.md" is corrupt: too many bytes in the stream/);
  });

  it('refuses a ratio bomb under the size limit (4 MiB of zeros deflate over 1000:1)', async () => {
    const zip = await zipOfZeros('bomb.md', 4 * 1024 * 1024);
    expect(await refusal(zip)).toEqual({
      status: 413,
      message: 'Archive entry "bomb.md" is compressed more than 100:1',
      error: 'payload_too_large',
    });
  });

  it('refuses 101 files, and counts neither directories nor dropped junk', async () => {
    const files = Array.from({ length: 101 }, (_, i) => ({ path: `f${i}.md`, data: `${i}` }));
    expect(await refusal(await buildZip(files))).toEqual({
      status: 413,
      message: 'The archive holds more than 100 files',
      error: 'payload_too_large',
    });
    const padded = [
      ...files.slice(0, 100),
      { path: 'dir/', data: '' },
      { path: '__MACOSX/._f1.md', data: 'x' },
      { path: '.DS_Store', data: 'x' },
    ];
    expect(await paths(padded)).toHaveLength(100);
  });

  it('refuses more than 20 MiB in all', async () => {
    const big = Buffer.alloc(4.5 * 1024 * 1024, 'a');
    const entries = [1, 2, 3, 4, 5].map((n) => ({ path: `f${n}.md`, data: big, store: true }));
    expect(await refusal(await buildZip(entries))).toEqual({
      status: 413,
      message: "The archive's files hold more than 20971520 bytes in all",
      error: 'payload_too_large',
    });
  });

  it('refuses a file that is not UTF-8, naming it', async () => {
    const zip = await buildZip([
      { path: 'ok.md', data: 'fine' },
      { path: 'image.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]) },
    ]);
    expect(await refusal(zip)).toEqual({
      status: 400,
      message: 'Archive entry "image.png" is not UTF-8 text',
      error: 'invalid_file',
    });
  });

  it('refuses an entry whose bytes fail its CRC-32', async () => {
    const zip = await buildZip([{ path: 'a.md', data: 'hello world', store: true }]);
    const at = zip.indexOf('hello world');
    zip[at] = 'j'.charCodeAt(0);
    expect(await refusal(zip)).toEqual({
      status: 400,
      message: 'Archive entry "a.md" fails its CRC-32 check',
      error: 'invalid_archive',
    });
  });

  it('refuses the same name twice', async () => {
    const zip = await buildZip([
      { path: 'a.md', data: '1' },
      { path: 'a.md', data: '2' },
    ]);
    expect(await refusal(zip)).toEqual({
      status: 400,
      message: 'Archive entry "a.md" appears twice',
      error: 'invalid_archive',
    });
  });

  it('refuses bytes that are not a ZIP, and a truncated one', async () => {
    expect(await refusal(Buffer.from('this is not a zip file at all'))).toMatchObject({
      status: 400,
      error: 'invalid_archive',
      message:
        'Invalid ZIP archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
    });
    const zip = await buildZip([{ path: 'a.md', data: 'x'.repeat(1000) }]);
    expect(await refusal(zip.subarray(0, zip.length - 30))).toMatchObject({
      status: 400,
      error: 'invalid_archive',
    });
  });
});

describe('writeSkillArchive', () => {
  it('round-trips through readSkillArchive and checkSkillFiles, byte for byte the same each time', async () => {
    const files = checkSkillFiles([
      { path: 'triage/SKILL.md', content: skillMd('triage') },
      { path: 'triage/references/policy.md', content: 'Politique: café ☕\n'.repeat(1000) },
      { path: 'AGENTS.md', content: '' },
    ]);
    const zip = await writeSkillArchive(files);
    expect(zip.subarray(0, 4).toString('hex')).toBe('504b0304');
    expect(checkSkillFiles(await readSkillArchive(zip))).toEqual(files);
    expect((await writeSkillArchive(files)).equals(zip)).toBe(true);
  });
});

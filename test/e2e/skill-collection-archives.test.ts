import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { formBody, type RawEntry, rawZip, skillMd, zipOf } from '#test/support/skill-archives.ts';

/**
 * Hostile ZIPs through the real create and version routes: zip-slip and absolute names, a symlink, an
 * entry whose declared size lies, 200 MB of zeros, 101 entries. Each is refused with a 400 or 413 and
 * nothing is stored (no table item, no S3 object); the collection a refused version targets keeps its
 * files.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/skill-collections';
const MB = 1024 * 1024;

const stored = (name: string, text: string): RawEntry => {
  const data = Buffer.from(text);
  return { name, data, crc32: crc32(data), declaredSize: data.length };
};

/** `bytes` zeros, deflated as a stream (the zeros are never held whole). */
async function deflatedZeros(bytes: number): Promise<{ data: Buffer; crc: number }> {
  const chunk = Buffer.alloc(MB);
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (part: Buffer) => out.push(part));
  let crc = 0;
  for (let written = 0; written < bytes; written += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, bytes - written));
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  await new Promise((resolve) => deflate.end(resolve));
  return { data: Buffer.concat(out), crc };
}

async function hostileArchives(): Promise<[string, Buffer][]> {
  const good = stored('triage/SKILL.md', skillMd('triage'));
  const zeros200 = await deflatedZeros(200 * MB);
  const zeros50 = await deflatedZeros(50 * MB);
  const many: Record<string, string> = {};
  for (let i = 0; i < 101; i++) many[`notes/n${i}.md`] = `note ${i}`;
  return [
    ['zip-slip', rawZip([good, stored('../../etc/evil.md', 'evil')])],
    ['absolute path', rawZip([good, stored('/abs/evil.md', 'evil')])],
    ['symlink', rawZip([good, { ...stored('triage/link.md', '/etc/passwd'), unixMode: 0o120777 }])],
    [
      'lying size',
      rawZip([
        good,
        { name: 'triage/lie.md', data: zeros50.data, deflated: true, crc32: zeros50.crc, declaredSize: 100 },
      ]),
    ],
    [
      '200 MB of zeros',
      rawZip([
        good,
        {
          name: 'triage/zeros.md',
          data: zeros200.data,
          deflated: true,
          crc32: zeros200.crc,
          declaredSize: 200 * MB,
        },
      ]),
    ],
    ['101 entries', await zipOf(many)],
    ['not a ZIP', Buffer.from('PK\u0003\u0004 this is not an archive')],
    [
      'ratio bomb under the size limits',
      rawZip([
        good,
        {
          name: 'triage/bomb.md',
          data: deflateRawSync(Buffer.alloc(4 * MB)),
          deflated: true,
          crc32: crc32(Buffer.alloc(4 * MB)),
          declaredSize: 4 * MB,
        },
      ]),
    ],
  ];
}

describe('hostile archives', () => {
  it('refuses each on create (400 or 413) and stores nothing', async () => {
    for (const [what, zip] of await hostileArchives()) {
      const form = await formBody(
        { metadata: JSON.stringify({ name: uniqueName('hostile') }) },
        { field: 'archive', data: zip },
      );
      const answer = await service.rejected('POST', BASE, form);
      expect([400, 413], `${what}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
    const list = await service.call('GET', BASE);
    expect(list.body.skill_collections).toEqual([]);
  });

  it('refuses each as a version, and the collection keeps its files', async () => {
    const name = uniqueName('target');
    const created = await service.call('POST', BASE, {
      body: { name, files: [{ path: 'triage/SKILL.md', content: skillMd('triage') }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const [what, zip] of await hostileArchives()) {
      const form = await formBody({}, { field: 'zip', data: zip });
      const answer = await service.rejected('POST', `${BASE}/${name}/versions`, form);
      expect([400, 413], `${what}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
    const read = await service.call('GET', `${BASE}/${name}`);
    expect(read.body.version.number).toBe(1);
    expect(Object.keys(read.body.files)).toEqual(['triage/SKILL.md']);
  });
});

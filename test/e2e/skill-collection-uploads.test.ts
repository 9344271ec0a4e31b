import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { multipartBody, type TestPart } from '#test/support/multipart.ts';
import { buildZip, declareSize, skillMd, zipOfZeros, zipWithName } from '#test/support/skill-archives.ts';

/**
 * Uploads of skill collections through the local gateway and the real create route, as a client sends
 * them: each crafted hostile ZIP answered with its own status and message, each malformed multipart body
 * with its 415 / 413 / 400, and nothing stored for any of them (no table item, no S3 object, an empty
 * list). One good upload shows the same path accepts what it should.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const BASE = '/api/public/v2/skill-collections';
const MB = 1024 * 1024;
const good = { path: 'triage/SKILL.md', data: skillMd('triage') };

const metadata = (name = 'uploaded'): TestPart => ({ name: 'metadata', data: JSON.stringify({ name }) });
const archive = (data: Buffer, name = 'archive'): TestPart => ({
  name,
  filename: 'skills.zip',
  contentType: 'application/zip',
  data,
});

/** POSTs a multipart body that must be refused, leaving table and bucket as they were. */
async function refusedUpload(parts: TestPart[], boundary?: string) {
  const { body, contentType } = multipartBody(parts, boundary);
  const answer = await service.rejected('POST', BASE, {
    rawBody: body,
    headers: { 'Content-Type': contentType },
  });
  return {
    status: answer.status,
    message: answer.body.message as string,
    error: answer.body.error as string,
  };
}

describe('hostile archives through POST /api/public/v2/skill-collections', () => {
  it.each<[string, () => Promise<Buffer>, { status: number; message: string | RegExp; error: string }]>([
    [
      'a zip-slip name',
      () => zipWithName('../../etc/evil.md'),
      {
        status: 400,
        message: 'Invalid ZIP archive: invalid relative path: ../../etc/evil.md',
        error: 'invalid_archive',
      },
    ],
    [
      'an absolute name',
      () => zipWithName('/abs/evil.md'),
      { status: 400, message: 'Invalid ZIP archive: absolute path: /abs/evil.md', error: 'invalid_archive' },
    ],
    [
      'a symbolic link',
      () => buildZip([good, { path: 'triage/passwd.md', data: '/etc/passwd', mode: 0o120777 }]),
      {
        status: 400,
        message: 'Archive entry "triage/passwd.md" is a symbolic link',
        error: 'invalid_archive',
      },
    ],
    [
      'a lying entry (declares 100 B, inflates to 50 MB)',
      async () => declareSize(await zipOfZeros('lie.md', 50 * MB), 'lie.md', 100),
      {
        status: 400,
        message: /^Archive entry "lie\.md" is corrupt: too many bytes in the stream\. expected 100\./,
        error: 'invalid_archive',
      },
    ],
    [
      '200 MB of zeros',
      () => zipOfZeros('zeros.md', 200 * MB),
      {
        status: 413,
        message: 'Archive entry "zeros.md" is 209715200 bytes; a file holds at most 5242880',
        error: 'payload_too_large',
      },
    ],
    [
      'a ratio bomb under the size limits',
      () => zipOfZeros('bomb.md', 4 * MB),
      {
        status: 413,
        message: 'Archive entry "bomb.md" is compressed more than 100:1',
        error: 'payload_too_large',
      },
    ],
    [
      '101 entries',
      () => buildZip(Array.from({ length: 101 }, (_, i) => ({ path: `notes/n${i}.md`, data: `${i}` }))),
      { status: 413, message: 'The archive holds more than 100 files', error: 'payload_too_large' },
    ],
    [
      'a file that is not UTF-8',
      () => buildZip([good, { path: 'triage/logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]) }]),
      { status: 400, message: 'Archive entry "triage/logo.png" is not UTF-8 text', error: 'invalid_file' },
    ],
    [
      'bytes that are not a ZIP',
      async () => Buffer.from('PK\u0003\u0004 but nothing after'),
      {
        status: 400,
        message:
          'Invalid ZIP archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
        error: 'invalid_archive',
      },
    ],
  ])('refuses %s with its status and message, storing nothing', async (_label, build, expected) => {
    const refused = await refusedUpload([metadata(), archive(await build())]);
    expect({ status: refused.status, error: refused.error }).toEqual({
      status: expected.status,
      error: expected.error,
    });
    if (typeof expected.message === 'string') expect(refused.message).toBe(expected.message);
    else expect(refused.message).toMatch(expected.message);
  });

  it('refuses a SKILL.md that breaks the rules with a 422 naming the file', async () => {
    const zip = await buildZip([{ path: 'triage/SKILL.md', data: skillMd('refunds') }]);
    expect(await refusedUpload([metadata(), archive(zip)])).toEqual({
      status: 422,
      message: 'triage/SKILL.md: `name` "refunds" must equal the name of its folder, "triage"',
      error: 'invalid_skill',
    });
  });
});

describe('malformed multipart bodies through the gateway', () => {
  it.each([
    ['application/xml', '<collection/>'],
    // PromptLayer documents 415 here; JSON-only routes read text/plain as JSON, these routes do not.
    ['text/plain', 'files: SKILL.md'],
    ['text/plain; charset=utf-8', JSON.stringify({ name: 'plain', files: [] })],
  ])(
    'answers 415 to a content type that is neither JSON nor multipart/form-data (%s)',
    async (type, rawBody) => {
      const answer = await service.rejected('POST', BASE, { rawBody, headers: { 'Content-Type': type } });
      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({
        success: false,
        message: 'Request body must be JSON (Content-Type: application/json) or multipart/form-data',
        error: 'unsupported_media_type',
      });
    },
  );

  it('answers 413 to a text part over 256 KiB, and to a body over the 6 MB request limit', async () => {
    const big = { name: 'metadata', data: JSON.stringify({ name: 'x', pad: 'a'.repeat(256 * 1024) }) };
    expect(await refusedUpload([big])).toEqual({
      status: 413,
      message: 'Text part "metadata" exceeds 262144 bytes',
      error: 'payload_too_large',
    });
    const huge = await refusedUpload([metadata(), archive(Buffer.alloc(6 * MB + 1))]);
    expect(huge.status).toBe(413);
  });

  it.each<[string, TestPart[], string]>([
    [
      'the file under an undeclared name',
      [metadata(), { name: 'upload', filename: 'skills.zip', data: Buffer.from('PK') }],
      'Unexpected file part "upload" (expected "archive", "zip", "files", "metadata", "json")',
    ],
    [
      'two files',
      [metadata(), archive(Buffer.from('PK')), archive(Buffer.from('PK'), 'zip')],
      'A multipart body may hold only one file',
    ],
    [
      'an undeclared text part',
      [metadata(), { name: 'name', data: 'x' }],
      'Unexpected text part "name" (expected "archive", "zip", "files", "metadata", "json")',
    ],
  ])('answers 400 to %s', async (_label, parts, message) => {
    expect(await refusedUpload(parts)).toEqual({ status: 400, message, error: 'invalid_multipart' });
  });

  it('answers 400 to a missing boundary and to a body cut short', async () => {
    const { body } = multipartBody([metadata()]);
    const noBoundary = await service.rejected('POST', BASE, {
      rawBody: body,
      headers: { 'Content-Type': 'multipart/form-data' },
    });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.message).toBe('Malformed multipart Content-Type: Multipart: Boundary not found');
    const { body: whole, contentType } = multipartBody([metadata(), archive(Buffer.alloc(100))]);
    const cut = await service.rejected('POST', BASE, {
      rawBody: whole.subarray(0, whole.length - 20),
      headers: { 'Content-Type': contentType },
    });
    expect(cut.status).toBe(400);
    expect(cut.body.message).toBe('Malformed multipart body: Unexpected end of form');
  });

  it('has stored no collection after all of the above', async () => {
    expect((await service.call('GET', BASE)).body.skill_collections).toEqual([]);
  });
});

describe('a good upload on the same path', () => {
  it('creates the collection from a quoted-boundary body, a provider export prefix and macOS junk stripped', async () => {
    const zip = await buildZip([
      { path: 'export/.claude/triage/SKILL.md', data: skillMd('triage') },
      { path: 'export/.claude/triage/.DS_Store', data: Buffer.from([0, 0, 0xff]) },
      { path: '__MACOSX/export/._x', data: Buffer.from([0xff]) },
    ]);
    const { body, contentType } = multipartBody([metadata('from-export'), archive(zip, 'zip')], 'b_o.u=nd');
    const created = await service.call('POST', BASE, {
      rawBody: body,
      headers: { 'Content-Type': contentType },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await service.call('GET', `${BASE}/from-export`);
    expect(read.body.files).toEqual({ 'triage/SKILL.md': skillMd('triage') });
  });
});

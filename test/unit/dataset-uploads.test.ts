import { DeleteObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkUpload,
  createUploadUrl,
  decodeBase64File,
  isUploadKeyOf,
  MAX_FILE_BYTES,
  newUploadKey,
  requireFileKind,
} from '#shared/datasets/uploads.ts';

/** How dataset files arrive: strict base64 with its size known before decoding, names, upload keys. */
process.env.BUCKET_NAME = 'bucket';
const s3 = mockClient(S3Client);
afterAll(() => s3.restore());
beforeEach(() => s3.reset());

describe('decodeBase64File', () => {
  it.each([
    ['standard with padding', Buffer.from('a,b\n1,2\n').toString('base64')],
    ['without padding', Buffer.from('a,b\n1,2\n').toString('base64').replace(/=+$/, '')],
    ['URL-safe alphabet', Buffer.from([0xfb, 0xff, 0xbf, 0x0a]).toString('base64url')],
    [
      'with line breaks (MIME)',
      `${Buffer.from('x'.repeat(100))
        .toString('base64')
        .replace(/(.{76})/g, '$1\r\n')}`,
    ],
  ])('decodes %s', (_, text) => {
    const decoded = decodeBase64File(text);

    expect(decoded.toString('base64').replace(/=+$/, '')).toBe(
      Buffer.from(text.replace(/\s/g, ''), text.includes('-') || text.includes('_') ? 'base64url' : 'base64')
        .toString('base64')
        .replace(/=+$/, ''),
    );
  });

  it.each([
    ['characters outside the alphabet', 'YWJj!ZGVm'],
    ['a length no encoding produces', 'YWJjZ'],
    ['padding in the middle', 'YQ==YWJj'],
    ['three padding characters', 'YQ==='],
    ['both alphabets at once', 'ab+c_d=='],
    ['only padding', '===='],
    ['only whitespace', ' \n '],
  ])('refuses %s with a 400', (_, text) => {
    expect(() => decodeBase64File(text)).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_base64' }),
    );
  });

  it('refuses a file over the limit from its length alone', () => {
    const text = 'A'.repeat(1400);

    expect(() => decodeBase64File(text, 1024)).toThrow(
      expect.objectContaining({ status: 400, code: 'file_too_large' }),
    );
    expect(decodeBase64File(text, 1050)).toHaveLength(1050);
  });
});

describe('file names and upload keys', () => {
  it('takes .csv and .json in any case, and nothing else (400)', () => {
    expect(requireFileKind('a.CSV')).toBe('csv');
    expect(requireFileKind('x.tar.json')).toBe('json');
    for (const name of ['a.txt', 'csv', 'a.csv.gz', 'a.jsonl']) {
      expect(() => requireFileKind(name)).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_file_type' }),
      );
    }
  });

  it('keeps keys below the workspace upload area, without slashes, within S3 key limits', () => {
    const key = newUploadKey(3, `../../${'é'.repeat(300)}/a.csv`);

    expect(key).toMatch(/^uploads\/3\/[0-9a-f-]{36}\/[^/]+$/);
    expect(Buffer.byteLength(key)).toBeLessThan(1024);
    expect(key.endsWith('_a.csv')).toBe(true);
  });

  const ID = '6f1c2b9e-1d4a-4c8e-9f3b-0a1b2c3d4e5f';

  it('accepts exactly the keys upload-url hands out', () => {
    expect(isUploadKeyOf(3, newUploadKey(3, 'evals.csv'))).toBe(true);
    expect(isUploadKeyOf(3, newUploadKey(3, `../..\\${'é'.repeat(300)}.json`))).toBe(true);
    expect(isUploadKeyOf(3, `uploads/3/${ID}/a b (1).csv`)).toBe(true);
  });

  it.each([
    ['another workspace', `uploads/4/${ID}/a.csv`],
    ['a workspace whose id starts the same', `uploads/33/${ID}/a.csv`],
    ['not an upload', 'datasets/3/1/manifest.json'],
    ['a path back out of the workspace', `uploads/3/../4/${ID}/secret.csv`],
    ['a .. segment in place of the name', `uploads/3/${ID}/..`],
    ['a . segment', `uploads/3/./${ID}/a.csv`],
    ['an empty segment', `uploads/3//${ID}/a.csv`],
    ['an extra segment', `uploads/3/${ID}/x/a.csv`],
    ['a backslash', `uploads/3/${ID}/..\\..\\4\\a.csv`],
    ['no name', `uploads/3/${ID}/`],
    ['no UUID', 'uploads/3/u/a.csv'],
    ['an upper-case UUID', `uploads/3/${ID.toUpperCase()}/a.csv`],
    ['a control character', `uploads/3/${ID}/a\n.csv`],
    ['a name over 200 bytes', `uploads/3/${ID}/${'n'.repeat(197)}.csv`],
  ])('refuses %s (422) before looking at S3', async (_, key) => {
    expect(isUploadKeyOf(3, key)).toBe(false);
    await expect(checkUpload(3, key)).rejects.toMatchObject({
      status: 422,
      detail: [expect.objectContaining({ loc: ['body', 'file_key'] })],
    });
    expect(s3.calls()).toHaveLength(0);
  });

  it('checks that the upload exists and fits', async () => {
    const key = (name: string) => `uploads/3/${ID}/${name}`;
    s3.on(HeadObjectCommand, { Key: key('ok.csv') }).resolves({ ContentLength: 10, ETag: '"e"' });
    s3.on(HeadObjectCommand, { Key: key('big.csv') }).resolves({ ContentLength: MAX_FILE_BYTES + 1 });
    s3.on(HeadObjectCommand, { Key: key('none.csv') }).rejects(
      Object.assign(new Error('no'), { name: 'NotFound' }),
    );

    expect(await checkUpload(3, key('ok.csv'))).toEqual({ key: key('ok.csv'), size: 10, etag: '"e"' });
    await expect(checkUpload(3, key('big.csv'))).rejects.toMatchObject({
      status: 400,
      code: 'file_too_large',
    });
    await expect(checkUpload(3, key('none.csv'))).rejects.toMatchObject({
      status: 400,
      code: 'file_not_found',
    });
    // Only the refused upload is deleted: it would otherwise wait a day in the bucket.
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
      key('big.csv'),
    ]);
  });

  it('signs the size into the upload URL when the client gives it, so S3 takes no other size', async () => {
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
    process.env.AWS_REGION ??= 'us-east-1';
    const sized = new URL((await createUploadUrl(3, 'a.csv', 1234)).upload_url);
    const open = new URL((await createUploadUrl(3, 'a.csv')).upload_url);

    expect(sized.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-length');
    expect(open.searchParams.get('X-Amz-SignedHeaders')?.split(';')).not.toContain('content-length');
    await expect(createUploadUrl(3, 'a.csv', MAX_FILE_BYTES + 1)).rejects.toMatchObject({
      status: 400,
      code: 'file_too_large',
    });
  });
});

import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkUpload,
  decodeBase64File,
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

  it('refuses a key of another workspace before looking at S3', async () => {
    await expect(checkUpload(3, 'uploads/4/u/a.csv')).rejects.toMatchObject({ status: 422 });
    await expect(checkUpload(3, 'uploads/33/u/a.csv')).rejects.toMatchObject({ status: 422 });
    await expect(checkUpload(3, 'datasets/3/1/manifest.json')).rejects.toMatchObject({ status: 422 });
    expect(s3.calls()).toHaveLength(0);
  });

  it('checks that the upload exists and fits', async () => {
    s3.on(HeadObjectCommand, { Key: 'uploads/3/u/ok.csv' }).resolves({ ContentLength: 10, ETag: '"e"' });
    s3.on(HeadObjectCommand, { Key: 'uploads/3/u/big.csv' }).resolves({ ContentLength: MAX_FILE_BYTES + 1 });
    s3.on(HeadObjectCommand, { Key: 'uploads/3/u/none.csv' }).rejects(
      Object.assign(new Error('no'), { name: 'NotFound' }),
    );

    expect(await checkUpload(3, 'uploads/3/u/ok.csv')).toEqual({
      key: 'uploads/3/u/ok.csv',
      size: 10,
      etag: '"e"',
    });
    await expect(checkUpload(3, 'uploads/3/u/big.csv')).rejects.toMatchObject({
      status: 400,
      code: 'file_too_large',
    });
    await expect(checkUpload(3, 'uploads/3/u/none.csv')).rejects.toMatchObject({
      status: 400,
      code: 'file_not_found',
    });
  });
});

import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { datasetKey } from '#shared/datasets/keys.ts';
import { appendManifest, ChunkWriter, type Manifest, newManifest } from '#shared/datasets/manifest.ts';
import { datasetRows, keepingChunkReader, rowWindow } from '#shared/datasets/rows.ts';

/**
 * Rows in S3: chunks written in order with bounded uploads in flight, manifests that append across
 * layouts, and pages of rows read from only the chunks that hold them.
 */
process.env.BUCKET_NAME = 'bucket';
process.env.TABLE_NAME = 'table';
const s3 = mockClient(S3Client);
const ddb = mockClient(DynamoDBDocumentClient);
afterAll(() => {
  s3.restore();
  ddb.restore();
});

/** An in-memory bucket behind the S3 mock. */
let objects: Map<string, string>;
beforeEach(() => {
  objects = new Map();
  s3.reset();
  ddb.reset();
  s3.on(PutObjectCommand).callsFake(async (input) => {
    objects.set(input.Key, Buffer.from(input.Body).toString('utf8'));
    return {};
  });
  s3.on(GetObjectCommand).callsFake(async (input) => {
    const text = objects.get(input.Key);
    if (text === undefined) throw Object.assign(new Error('missing'), { name: 'NoSuchKey' });
    return { Body: { transformToString: async () => text } };
  });
});

describe('ChunkWriter', () => {
  it('writes rows in order, in chunks of about 2 MB, and says how many rows each holds', async () => {
    const writer = new ChunkWriter(1, 2, 'job');
    const big = 'x'.repeat(1000);
    for (let i = 0; i < 5000; i += 250) {
      await writer.add(Array.from({ length: 250 }, (_, k) => ({ n: i + k, big })));
    }

    const chunks = await writer.finish();

    expect(chunks.length).toBe(3);
    expect(chunks.map((c) => c.key)).toEqual([1, 2, 3].map((n) => `datasets/1/2/job/rows-00000${n}.jsonl`));
    expect(chunks.reduce((sum, c) => sum + c.rows, 0)).toBe(5000);
    const read = chunks.flatMap((c) =>
      objects
        .get(c.key)!
        .trim()
        .split('\n')
        .flatMap((line) => JSON.parse(line) as { n: number }[]),
    );
    expect(read.map((row) => row.n)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    for (const chunk of chunks) expect(chunk.bytes).toBe(Buffer.byteLength(objects.get(chunk.key)!));
  });

  it('keeps lines small when rows are large', async () => {
    const writer = new ChunkWriter(1, 2, 'job');
    await writer.add(Array.from({ length: 40 }, () => ({ big: 'y'.repeat(100_000) })));

    const [chunk] = await writer.finish();

    const lines = objects.get(chunk!.key)!.trim().split('\n');
    expect(lines.length).toBeGreaterThan(10);
    expect(Math.max(...lines.slice(1).map((line) => line.length))).toBeLessThan(300_000);
  });
});

describe('appendManifest', () => {
  it('unites columns by name and keeps each chunk reading its own keys', () => {
    const file = newManifest(
      ['question', 'answer'],
      ['question', 'answer'],
      [{ key: 'a', rows: 2, bytes: 1, layout: 0 }],
    );
    const logs = newManifest(
      ['question', 'input'],
      ['v:question', 'f:input'],
      [{ key: 'b', rows: 3, bytes: 1, layout: 0 }],
    );

    const merged = appendManifest(file, logs);

    expect(merged).toEqual<Manifest>({
      v: 1,
      columns: ['question', 'answer', 'input'],
      rowCount: 5,
      layouts: [
        ['question', 'answer', null],
        ['v:question', null, 'f:input'],
      ],
      chunks: [
        { key: 'a', rows: 2, bytes: 1, layout: 0 },
        { key: 'b', rows: 3, bytes: 1, layout: 1 },
      ],
    });
    expect(appendManifest(undefined, logs)).toBe(logs);
  });
});

describe('datasetRows', () => {
  // Manifests are cached by key: each dataset here gets a job of its own, as each job does.
  let jobs = 0;
  async function storeDataset(rows: number) {
    const job = `job-${++jobs}`;
    const writer = new ChunkWriter(1, 5, job);
    // Rows big enough for several chunks.
    await writer.add(
      Array.from({ length: rows }, (_, n) => ({ n: String(n), text: `row ${n} ${'z'.repeat(900)}` })),
    );
    const manifest = newManifest(['n', 'text'], ['n', 'text'], await writer.finish());
    objects.set(`datasets/1/5/${job}/manifest.json`, JSON.stringify(manifest));
    ddb.on(GetCommand, { Key: datasetKey(1, 5) }).resolves({
      Item: {
        ...datasetKey(1, 5),
        id: 5,
        workspaceId: 1,
        groupId: 1,
        groupName: 'g',
        versionNumber: 1,
        columns: ['n', 'text'],
        rowCount: rows,
        manifestKey: `datasets/1/5/${job}/manifest.json`,
      },
    });
    return manifest;
  }

  it('reads a page across a chunk boundary from the two chunks that hold it', async () => {
    const manifest = await storeDataset(6000);
    const boundary = manifest.chunks[0]!.rows;
    const page = Math.floor(boundary / 100) + 1;
    s3.resetHistory();

    const answer = await datasetRows(1, 5, { page, per_page: 100 });

    expect(answer).toMatchObject({ columns: ['n', 'text'], total: 6000, pages: 60, page, per_page: 100 });
    expect(answer.rows.map((row) => Number(row[0]!.value))).toEqual(
      Array.from({ length: 100 }, (_, i) => (page - 1) * 100 + i),
    );
    expect(answer.rows[0]![0]).toEqual({ type: 'dataset', value: String((page - 1) * 100) });
    const gets = s3.commandCalls(GetObjectCommand).map((call) => call.args[0].input.Key);
    expect(gets.filter((key) => key?.endsWith('.jsonl'))).toEqual([
      manifest.chunks[0]!.key,
      manifest.chunks[1]!.key,
    ]);
  });

  it('reads consecutive small windows fetching each chunk once with a keeping reader', async () => {
    const manifest = await storeDataset(6000);
    s3.resetHistory();
    const read = keepingChunkReader(2);
    const rows: unknown[][] = [];
    for (let from = 0; from < 6000; from += 50) rows.push(...(await rowWindow(manifest, from, 50, read)));
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 6000 }, (_, n) => n));
    const gets = s3.commandCalls(GetObjectCommand).map((call) => call.args[0].input.Key);
    expect(gets.filter((key) => key?.endsWith('.jsonl'))).toEqual(manifest.chunks.map((chunk) => chunk.key));
  });

  it('searches every row with q, case-insensitively, counting all matches', async () => {
    await storeDataset(3000);

    const answer = await datasetRows(1, 5, { page: 2, per_page: 5, q: 'ROW 1' });

    // "row 1", "row 10".."row 19", "row 100".."row 199", "row 1000".."row 1999": 1 + 10 + 100 + 1000,
    // in row order: 1, 10, 11, 12, 13 on page 1.
    expect(answer.total).toBe(1111);
    expect(answer.pages).toBe(223);
    expect(answer.rows.map((row) => row[0]!.value)).toEqual(['14', '15', '16', '17', '18']);
  });

  it('answers 404 for a dataset it cannot find', async () => {
    ddb.on(GetCommand).resolves({});

    await expect(datasetRows(1, 6, { page: 1, per_page: 10 })).rejects.toMatchObject({ status: 404 });
  });
});

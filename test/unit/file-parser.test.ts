import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  DatasetFileError,
  type DatasetFileKind,
  type DatasetRow,
  datasetFileKind,
  MAX_ROW_BYTES,
  parseDatasetFile,
} from '#shared/datasets/file-parser.ts';
import { MAX_JSON_DEPTH } from '#shared/platform/config.ts';

const BOM = '\uFEFF';
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The bytes as a stream of `size`-byte chunks, so tokens and multi-byte characters are cut apart. */
async function* chunked(bytes: Uint8Array | string, size: number): AsyncGenerator<Uint8Array> {
  const all = typeof bytes === 'string' ? utf8(bytes) : bytes;
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

/** A row as column name -> value, wherever the parser keeps each column (CSV: by index). */
function rowObject(row: DatasetRow, columns: string[], keys: (number | string)[]) {
  const cells = row as Record<number | string, unknown>;
  return Object.fromEntries(columns.map((column, i) => [column, cells[keys[i]!]]));
}

async function parseAll(kind: DatasetFileKind, file: Uint8Array | string, chunkSize = 7, batchSize?: number) {
  const batches: DatasetRow[][] = [];
  const result = await parseDatasetFile(
    kind,
    chunked(file, chunkSize),
    async (rows) => {
      batches.push(rows);
    },
    batchSize === undefined ? undefined : { batchSize },
  );
  const rows = batches.flat().map((row) => rowObject(row, result.columns, result.keys));
  return { ...result, batches, rows };
}

async function fileError(kind: DatasetFileKind, file: Uint8Array | string, chunkSize = 5): Promise<string> {
  const err = await parseAll(kind, file, chunkSize).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DatasetFileError);
  return (err as DatasetFileError).message;
}

/** An opening, then `bytes` of filler arriving in 64 KiB chunks: a file too big to build as one string. */
async function* oversized(opening: string, filler: string, bytes: number): AsyncGenerator<Uint8Array> {
  yield utf8(opening);
  const block = utf8(filler.repeat(Math.ceil(65536 / filler.length)));
  for (let sent = 0; sent < bytes; sent += block.length) yield block;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('datasetFileKind', () => {
  it.each([
    ['rows.csv', 'csv'],
    ['ROWS.CSV', 'csv'],
    ['export.final.Json', 'json'],
    ['.json', 'json'],
    ['rows.csv.txt', undefined],
    ['rows.jsonl', undefined],
    ['rows.tsv', undefined],
    ['csv', undefined],
  ])('%s -> %s', (name, kind) => {
    expect(datasetFileKind(name)).toBe(kind);
  });
});

describe('parseDatasetFile: CSV', () => {
  const realistic = [
    'question,context,expected answer',
    '"What is 2+2?","Maths, basic",4',
    '"Summarise:\nLine one, with a comma\nLine two","He said ""hi"", then left","A ""short"" one"',
    'plain,,trailing empty',
    '"Café ☕ naïve 😀","日本語のテキスト","ok"',
  ].join('\n');

  const expected = [
    { question: 'What is 2+2?', context: 'Maths, basic', 'expected answer': '4' },
    {
      question: 'Summarise:\nLine one, with a comma\nLine two',
      context: 'He said "hi", then left',
      'expected answer': 'A "short" one',
    },
    { question: 'plain', context: '', 'expected answer': 'trailing empty' },
    { question: 'Café ☕ naïve 😀', context: '日本語のテキスト', 'expected answer': 'ok' },
  ];

  it('reads the header as columns and every record as a row of strings, quoted fields included', async () => {
    const { columns, rowCount, rows } = await parseAll('csv', `${realistic}\n`);
    expect(columns).toEqual(['question', 'context', 'expected answer']);
    expect(rowCount).toBe(4);
    expect(rows).toEqual(expected);
  });

  it('is the same with CRLF line ends, a BOM, no final newline and 1-byte chunks', async () => {
    const crlf = `${BOM}${realistic.replaceAll('\n', '\r\n')}`;
    const { columns, rows } = await parseAll('csv', crlf, 1);
    expect(columns).toEqual(['question', 'context', 'expected answer']);
    // Line ends inside quoted values are kept as they are in the file.
    expect(rows).toEqual(
      expected.map((row) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v.replaceAll('\n', '\r\n')])),
      ),
    );
  });

  it('skips blank lines between records', async () => {
    const { rows } = await parseAll('csv', 'a,b\n\n1,2\n\n\n3,4\n\n');
    expect(rows).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('keeps rows as arrays of values in column order, so a column named __proto__ is a plain column', async () => {
    const { batches, columns, keys } = await parseAll('csv', '__proto__,x\nvalue,1\n');
    expect(columns).toEqual(['__proto__', 'x']);
    expect(keys).toEqual([0, 1]);
    expect(batches).toEqual([[['value', '1']]]);
  });

  it('ends records at LF, CRLF or a lone CR, whatever the chunks', async () => {
    for (const size of [1, 2, 3, 64]) {
      const { rows } = await parseAll('csv', 'a,b\r1,"x\ry"\r\n2,3\n\r4,""\r', size);
      expect(rows).toEqual([
        { a: '1', b: 'x\ry' },
        { a: '2', b: '3' },
        { a: '4', b: '' },
      ]);
    }
  });

  it('reads empty fields, quoted or not, anywhere in a record', async () => {
    for (const size of [1, 3, 64]) {
      const { rows } = await parseAll('csv', 'a,b,c\n,,\n"",x,""\n"""",,"a""b"', size);
      expect(rows).toEqual([
        { a: '', b: '', c: '' },
        { a: '', b: 'x', c: '' },
        { a: '"', b: '', c: 'a"b' },
      ]);
    }
  });

  it('reads a record cut across many small chunks, a long quoted field included', async () => {
    const long = `${'word, "quoted"\n'.repeat(20_000)}end`;
    const file = `id,text\n1,"${long.replaceAll('"', '""')}"\n2,short\n`;
    for (const size of [7, 4096]) {
      const { rows } = await parseAll('csv', file, size);
      expect(rows).toEqual([
        { id: '1', text: long },
        { id: '2', text: 'short' },
      ]);
    }
  });

  it('reads a Node Readable handed over in one large chunk', async () => {
    const lines = ['id,text', ...Array.from({ length: 5000 }, (_, i) => `${i},"row ${i}\nsecond line"`)];
    const batches: number[] = [];
    const result = await parseDatasetFile(
      'csv',
      Readable.from([Buffer.from(lines.join('\n'))]),
      async (rows) => {
        batches.push(rows.length);
      },
    );
    expect(result.rowCount).toBe(5000);
    expect(batches).toEqual([1000, 1000, 1000, 1000, 1000]);
  });

  it.each([
    [
      'a ragged row',
      'a,b,c\n1,2,3\n"x\ny",2\n4,5,6\n',
      'The CSV row 2 (line 4) has 2 fields; every row must have one per header column',
    ],
    [
      'a row with too many fields',
      'a,b\n1,2\n3,4\n5,6,7\n',
      'The CSV row 3 (line 4) has 3 fields; every row must have one per header column',
    ],
    [
      'unbalanced quotes',
      'a,b\n1,2\n"3,4\n5,6\n',
      'The CSV has unbalanced quotes: a quoted field in row 2 is never closed',
    ],
    [
      'a quote inside an unquoted field',
      'a,b\n1,2\n3,4"5\n',
      'The CSV row 2 (line 3) has a quote inside an unquoted field',
    ],
    [
      'text after a closing quote',
      'a,b\n"1"x,2\n',
      'The CSV row 1 (line 2) has text after the closing quote of a field',
    ],
    [
      'a duplicate header name',
      'id,name,id\n1,2,3\n',
      'The CSV header has the column name "id" twice (column 3)',
    ],
    ['an empty header name', 'id,,name\n1,2,3\n', 'The CSV header has an empty column name (column 2)'],
    ['a blank header name', 'id, \n1,2\n', 'The CSV header has an empty column name (column 2)'],
    ['an empty file', '', 'The file is empty: it has no rows'],
    ['a file of blank lines', '\r\n\r\n', 'The file is empty: it has no rows'],
    ['a BOM alone', BOM, 'The file is empty: it has no rows'],
    ['a header only', 'a,b,c\n', 'The CSV file has a header but no rows'],
    ['a header and blank lines', `${BOM}a,b\r\n\r\n`, 'The CSV file has a header but no rows'],
  ])('rejects %s', async (_, file, message) => {
    expect(await fileError('csv', file)).toContain(message);
  });

  it('rejects invalid UTF-8, giving the line', async () => {
    const file = new Uint8Array([...utf8('a,b\n1,2\n3,'), 0xc3, 0x28, ...utf8('\n5,6\n')]);
    expect(await fileError('csv', file, 1)).toBe('The file is not valid UTF-8 text (line 3)');
    expect(await fileError('csv', file, 64)).toBe('The file is not valid UTF-8 text (line 3)');
  });

  it('rejects a file that ends in the middle of a UTF-8 character', async () => {
    const file = utf8('a,b\n1,é');
    expect(await fileError('csv', file.slice(0, -1))).toContain('not valid UTF-8');
  });

  it('rejects a record larger than the row limit instead of buffering the rest of the file', async () => {
    const err = await parseDatasetFile(
      'csv',
      oversized('a,b\n1,2\n"open,', 'no closing quote\n', MAX_ROW_BYTES + 1),
      async () => {},
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetFileError);
    expect((err as Error).message).toMatch(/^The CSV row 2 \(line \d+\) is larger than 10 MB/);
  });
});

describe('parseDatasetFile: JSON', () => {
  const rows = [
    { id: 1, question: 'Café ☕ — naïve? 😀', tags: ['a', 'b'], meta: { nested: { deep: true } } },
    { id: 2, answer: 'multi\nline "quoted"', score: -12.5e-1, ok: false, missing: null },
    { question: '日本語', extra: 12345678901234 },
  ];
  const file = `${BOM}[\n  ${rows.map((r) => JSON.stringify(r, null, 1)).join(' ,\n  ')}\n]\n`;

  it('streams an array of objects cut into 1-byte chunks, keeping JSON values and first-seen columns', async () => {
    const result = await parseAll('json', file, 1);
    expect(result.rows).toEqual(rows);
    expect(result.rowCount).toBe(3);
    expect(result.columns).toEqual([
      'id',
      'question',
      'tags',
      'meta',
      'answer',
      'score',
      'ok',
      'missing',
      'extra',
    ]);
  });

  it('gives the same rows for any chunk size', async () => {
    for (const size of [2, 3, 5, 13, 64, 4096])
      expect((await parseAll('json', file, size)).rows).toEqual(rows);
  });

  it.each([
    ['a top-level object', '{"rows": [{"a": 1}]}', 'The JSON file must be an array of objects'],
    ['a top-level string', '"[{}]"', 'The JSON file must be an array of objects'],
    ['a top-level number', ' 42 ', 'The JSON file must be an array of objects'],
    ['an array holding a number', '[{"a":1}, 2]', 'Row 2 of the JSON array is a number, not an object'],
    ['an array holding null', '[null]', 'Row 1 of the JSON array is null, not an object'],
    [
      'an array holding an array',
      '[{"a":1},{"b":2},[3]]',
      'Row 3 of the JSON array is an array, not an object',
    ],
    ['an array holding a string', '["a"]', 'Row 1 of the JSON array is a string, not an object'],
    ['trailing content', '[{"a":1}] x', 'The JSON file has more content after the end of its array'],
    ['a second array', '[{"a":1}]\n[{"a":2}]', 'The JSON file has more content after the end of its array'],
    ['a missing colon', '[{"a":1},{"b" 2}]', 'The JSON file is invalid: Unexpected NUMBER (2) at byte 14'],
    ['a misspelt literal', '[{"a":tru}]', 'The JSON file is invalid: Unexpected "}" at byte 9'],
    ['a trailing comma', '[{"a":1},]', 'The JSON file is invalid: Unexpected RIGHT_BRACKET ("]") at byte 9'],
    ['an empty array', ' [ ] ', 'The JSON array is empty: it has no rows'],
    ['an empty file', '', 'The file is empty: it has no rows'],
    ['whitespace only', ' \n\t ', 'The file is empty: it has no rows'],
    ['a BOM alone', BOM, 'The file is empty: it has no rows'],
  ])('rejects %s', async (_, text, message) => {
    expect(await fileError('json', text)).toContain(message);
  });

  it('rejects a truncated file wherever it is cut', async () => {
    const whole = '[{"a": "text", "b": [1, 2.5, true]}, {"c": null}]';
    for (let cut = 1; cut < whole.length; cut++) {
      const message = await fileError('json', whole.slice(0, cut), 3);
      expect(message, `cut at ${cut}`).toMatch(/^The JSON file is (incomplete|invalid)/);
    }
    expect(await fileError('json', whole.slice(0, -1))).toBe(
      'The JSON file is incomplete: it ends before its array is closed',
    );
  });

  it('rejects invalid UTF-8', async () => {
    const bad = new Uint8Array([...utf8('[{"a": "'), 0xff, ...utf8('"}]')]);
    expect(await fileError('json', bad, 2)).toBe('The file is not valid UTF-8 text (line 1)');
  });

  it('rejects a value nested 10,000 deep as a bad file, saying why, instead of overflowing the stack', async () => {
    const deep = `[{"a": 1}, {"b": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`;
    // onBatch stores rows as the worker does: JSON.stringify would overflow on such a row.
    const err = await parseDatasetFile('json', chunked(deep, 4096), async (rows) => {
      JSON.stringify(rows);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetFileError);
    expect((err as Error).message).toBe(
      `Row 2 of the JSON array is nested more than ${MAX_JSON_DEPTH} levels deep (at byte ${17 + MAX_JSON_DEPTH - 1})`,
    );
  });

  it('accepts a row nested as deep as a request body may be', async () => {
    // The row object is level 1: MAX_JSON_DEPTH - 1 arrays inside it reach the limit exactly.
    const inner = `${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    const { rows } = await parseAll('json', `[{"a": ${inner}}]`, 64);
    expect(rows).toHaveLength(1);
    expect(await fileError('json', `[{"a": [${inner}]}]`, 64)).toMatch(
      /^Row 1 .* nested more than 256 levels/,
    );
  });

  it('rejects a row larger than the row limit before it is all in memory', async () => {
    const err = await parseDatasetFile(
      'json',
      oversized('[{"a": 1}, {"b": "', 'x', MAX_ROW_BYTES + 1),
      async () => {},
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetFileError);
    expect((err as Error).message).toBe('Row 2 of the JSON array is larger than 10 MB');
  });
});

describe('parseDatasetFile: the row size limit', () => {
  /** One big row, then many small ones: a file bigger than the limit whose rows are all within it. */
  async function* bigFile(kind: DatasetFileKind): AsyncGenerator<Uint8Array> {
    const big = 'x'.repeat(MAX_ROW_BYTES - 1024);
    yield utf8(kind === 'csv' ? `n,text\n0,"${big}"\n` : `[{"n":0,"text":"${big}"}`);
    for (let n = 1; n <= 100_000; n += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ n: n + i, text: `row ${n + i}` }));
      yield utf8(
        rows.map((r) => (kind === 'csv' ? `${r.n},"${r.text}"\n` : `,${JSON.stringify(r)}`)).join(''),
      );
    }
    if (kind === 'json') yield utf8(']');
  }

  it.each(['csv', 'json'] as const)(
    '%s: accepts a row just under the limit in a file far over it',
    async (kind) => {
      let longest = 0;
      const { rowCount } = await parseDatasetFile(kind, bigFile(kind), async (rows) => {
        for (const row of rows) {
          const text = Array.isArray(row) ? row[1] : row.text;
          longest = Math.max(longest, String(text).length);
        }
      });
      expect(rowCount).toBe(100_001);
      expect(longest).toBe(MAX_ROW_BYTES - 1024);
    },
  );
});

describe('parseDatasetFile: batches and back-pressure', () => {
  const csv = (n: number) =>
    ['n,text', ...Array.from({ length: n }, (_, i) => `${i},"row\n${i}"`)].join('\n');
  const json = (n: number) =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ n: i, text: `row ${i}` })));

  it.each([
    ['csv', csv],
    ['json', json],
  ] as const)(
    '%s: delivers rows in order, in batches of batchSize, the last one partial',
    async (kind, make) => {
      const { batches, rowCount, rows } = await parseAll(kind, make(2500), 4096, 1000);
      expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500]);
      expect(rowCount).toBe(2500);
      expect(rows.map((r) => Number(r.n))).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    },
  );

  it.each([
    ['csv', csv],
    ['json', json],
  ] as const)('%s: uses batches of 1000 by default and sends no empty batch', async (kind, make) => {
    expect((await parseAll(kind, make(2000), 512)).batches.map((b) => b.length)).toEqual([1000, 1000]);
    expect((await parseAll(kind, make(3), 512, 2)).batches.map((b) => b.length)).toEqual([2, 1]);
  });

  it.each([
    ['csv', csv],
    ['json', json],
  ] as const)(
    '%s: reads no further while onBatch is pending, and never calls it twice at once',
    async (kind, make) => {
      const total = 20_000;
      const bytes = utf8(make(total));
      let pulled = 0;
      async function* source() {
        for await (const chunk of chunked(bytes, 256)) {
          pulled += chunk.length;
          yield chunk;
        }
      }
      const firstBatch = deferred();
      let calls = 0;
      let inFlight = 0;
      let maxInFlight = 0;
      const done = parseDatasetFile(
        kind,
        source(),
        async (rows) => {
          expect(rows).toHaveLength(100);
          calls++;
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await (calls === 1 ? firstBatch.promise : new Promise(setImmediate));
          inFlight--;
        },
        { batchSize: 100 },
      );

      await tick();
      expect(calls).toBe(1);
      const pulledWhileBlocked = pulled;
      await tick();
      // Only what the stream buffers hold is read ahead, and nothing more while the batch is pending.
      expect(pulled).toBe(pulledWhileBlocked);
      expect(pulled).toBeLessThan(bytes.length / 10);

      firstBatch.resolve();
      expect(await done).toMatchObject({ rowCount: total });
      expect(calls).toBe(total / 100);
      expect(maxInFlight).toBe(1);
    },
  );

  it.each([
    ['csv', csv],
    ['json', json],
  ] as const)(
    '%s: passes an onBatch error through unchanged and stops reading the source',
    async (kind, make) => {
      const failure = new Error('S3 is down');
      const source = Readable.from([Buffer.from(make(5000))]);
      const err = await parseDatasetFile(
        kind,
        source,
        async () => {
          throw failure;
        },
        { batchSize: 10 },
      ).catch((e: unknown) => e);
      expect(err).toBe(failure);
      expect(source.destroyed).toBe(true);
    },
  );

  it.each(['csv', 'json'] as const)('%s: passes a source error through unchanged', async (kind) => {
    const failure = new Error('connection reset');
    async function* source() {
      yield utf8(kind === 'csv' ? 'a,b\n1,2\n' : '[{"a":1},');
      throw failure;
    }
    await expect(parseDatasetFile(kind, source(), async () => {})).rejects.toBe(failure);
  });

  it('rejects a batch size that is not a positive integer', async () => {
    await expect(
      parseDatasetFile('csv', chunked('a\n1', 8), async () => {}, { batchSize: 0 }),
    ).rejects.toThrow(RangeError);
  });
});

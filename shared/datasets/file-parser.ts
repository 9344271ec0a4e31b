/**
 * Streams an uploaded dataset file (`.csv` or `.json`, up to 100 MB) into dataset rows, in batches the
 * caller writes out before more of the file is read, so memory stays bounded whatever the file size.
 */
import { isUtf8 } from 'node:buffer';
import { pipeline } from 'node:stream/promises';
import { JSONParser, TokenType } from '@streamparser/json';
import { CsvError, parse } from 'csv-parse';

export type DatasetFileKind = 'csv' | 'json';
/** Column name -> value; CSV values are strings, JSON values are kept as parsed. */
export type DatasetRow = Record<string, unknown>;

/** Why the file is invalid, for the user: becomes the failure event's `error_message`. */
export class DatasetFileError extends Error {
  override name = 'DatasetFileError';
}

const DEFAULT_BATCH_SIZE = 1000;
/** Parsers get at most this many bytes at a time, so one huge source chunk cannot pile up rows. */
const SLICE_BYTES = 64 * 1024;
/**
 * The most file text one row may take. Far above a real row, yet it keeps a stray open quote or one giant
 * value from holding most of a 100 MB file in memory (the worker's bound is 256 MB).
 */
export const MAX_ROW_BYTES = 10 * 1024 * 1024;
const MAX_ROW_MB = MAX_ROW_BYTES / 1024 / 1024;
/** Quoted values in messages are cut here: a message must stay readable (error_message is capped). */
const QUOTE_MAX = 80;

export function datasetFileKind(fileName: string): DatasetFileKind | undefined {
  const ext = /\.(csv|json)$/i.exec(fileName)?.[1]?.toLowerCase();
  return ext === 'csv' || ext === 'json' ? ext : undefined;
}

export async function parseDatasetFile(
  kind: DatasetFileKind,
  source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream,
  onBatch: (rows: DatasetRow[]) => Promise<void>,
  opts: { batchSize?: number } = {},
): Promise<{ columns: string[]; rowCount: number }> {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer');
  const batcher = createBatcher(batchSize, onBatch);
  const bytes = utf8Slices(source);
  const columns = kind === 'csv' ? await parseCsv(bytes, batcher) : await parseJson(bytes, batcher);
  await batcher.drain(true);
  return { columns, rowCount: batcher.count() };
}

interface Batcher {
  push(row: DatasetRow): void;
  pending(): number;
  full(): boolean;
  /** Hands every full batch (and with `all`, the rest) to onBatch, one at a time. */
  drain(all: boolean): Promise<void>;
  count(): number;
}

function createBatcher(size: number, onBatch: (rows: DatasetRow[]) => Promise<void>): Batcher {
  let rows: DatasetRow[] = [];
  let delivered = 0;
  return {
    push: (row) => {
      rows.push(row);
    },
    pending: () => rows.length,
    full: () => rows.length >= size,
    async drain(all) {
      while (rows.length >= size || (all && rows.length > 0)) {
        const batch = rows.length === size ? rows : rows.slice(0, size);
        rows = batch === rows ? [] : rows.slice(size);
        delivered += batch.length;
        await onBatch(batch);
      }
    },
    count: () => delivered,
  };
}

/**
 * The source as bytes cut into slices of at most SLICE_BYTES, checked to be UTF-8 on the way. A
 * character split between two source chunks is held back until it is whole, so slices never split one.
 */
async function* utf8Slices(source: AsyncIterable<Uint8Array | string> | NodeJS.ReadableStream) {
  let carry: Buffer | undefined;
  let line = 1;
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : asBuffer(chunk);
    if (carry) buf = Buffer.concat([carry, buf]);
    const whole = buf.subarray(0, buf.length - cutTail(buf));
    if (!isUtf8(whole)) {
      const at = firstInvalidUtf8(whole);
      throw new DatasetFileError(
        `The file is not valid UTF-8 text (line ${line + countNewlines(whole, at)})`,
      );
    }
    line += countNewlines(whole, whole.length);
    carry = whole.length < buf.length ? buf.subarray(whole.length) : undefined;
    for (let i = 0; i < whole.length; i += SLICE_BYTES) yield whole.subarray(i, i + SLICE_BYTES);
  }
  if (carry)
    throw new DatasetFileError(`The file is not valid UTF-8 text (line ${line}): it ends mid-character`);
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** How many bytes at the end of buf start a multi-byte character that the next chunk completes. */
function cutTail(buf: Uint8Array): number {
  for (let i = buf.length - 1; i >= 0 && i >= buf.length - 3; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > buf.length - i ? buf.length - i : 0;
  }
  return 0;
}

/** Where the first invalid sequence starts, give or take the length of one character. */
function firstInvalidUtf8(buf: Buffer): number {
  let lo = 0; // buf[0, lo) is known valid
  let hi = buf.length; // buf[0, hi) is known invalid
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    const prefix = buf.subarray(0, mid);
    if (isUtf8(prefix.subarray(0, mid - cutTail(prefix)))) lo = mid;
    else hi = mid;
  }
  return lo;
}

function countNewlines(buf: Buffer, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}

// ---------------------------------------------------------------------------------------------- CSV

async function parseCsv(bytes: AsyncIterable<Buffer>, batcher: Batcher): Promise<string[]> {
  let columns: string[] | undefined;
  try {
    await pipeline(
      bytes,
      // Records stay arrays (csv-parse's own objects are several times slower to build); it checks
      // every record's length against the first one, the header.
      parse({ bom: true, skip_empty_lines: true, max_record_size: MAX_ROW_BYTES }),
      async (records: AsyncIterable<string[]>) => {
        for await (const record of records) {
          if (columns === undefined) {
            columns = checkHeader(record);
            continue;
          }
          batcher.push(csvRow(columns, record));
          if (batcher.full()) await batcher.drain(false);
        }
      },
    );
  } catch (err) {
    throw err instanceof CsvError ? csvFileError(err) : err;
  }
  if (columns === undefined) throw new DatasetFileError('The file is empty: it has no rows');
  if (batcher.count() + batcher.pending() === 0) {
    throw new DatasetFileError('The CSV file has a header but no rows');
  }
  return columns;
}

function checkHeader(names: string[]): string[] {
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    if (name.trim() === '')
      throw new DatasetFileError(`The CSV header has an empty column name (column ${i + 1})`);
    if (seen.has(name)) {
      throw new DatasetFileError(`The CSV header has the column name ${quote(name)} twice (column ${i + 1})`);
    }
    seen.add(name);
  }
  return names;
}

function csvRow(columns: string[], record: string[]): DatasetRow {
  // Assignment is several times faster than Object.fromEntries, but would set the prototype for "__proto__".
  const row: DatasetRow = {};
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!;
    if (name === '__proto__') {
      Object.defineProperty(row, name, {
        value: record[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else row[name] = record[i];
  }
  return row;
}

/** csv-parse's context: `records` already emitted (the header included), `lines` read so far. */
function csvFileError(err: CsvError): DatasetFileError {
  const row = Number(err.records); // the failing record is the next one: data row `records`
  const where = `row ${row} (line ${Number(err.lines)})`;
  switch (err.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = Array.isArray(err.record) ? `${err.record.length} fields` : 'a different number of fields';
      return new DatasetFileError(`The CSV ${where} has ${got}; every row must have one per header column`);
    }
    case 'CSV_QUOTE_NOT_CLOSED':
      return new DatasetFileError(
        `The CSV has unbalanced quotes: a quoted field in row ${row} is never closed`,
      );
    case 'INVALID_OPENING_QUOTE':
      return new DatasetFileError(
        `The CSV ${where} has a quote inside an unquoted field; quote the field and double the quotes inside it`,
      );
    case 'CSV_MAX_RECORD_SIZE':
      return new DatasetFileError(
        `The CSV ${where} is larger than ${MAX_ROW_MB} MB; check for a quote that is never closed`,
      );
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new DatasetFileError(`The CSV ${where} has text after the closing quote of a field`);
    default:
      return new DatasetFileError(`The CSV is invalid at ${where}: ${err.message.slice(0, 200)}`);
  }
}

// --------------------------------------------------------------------------------------------- JSON

async function parseJson(bytes: AsyncIterable<Buffer>, batcher: Batcher): Promise<string[]> {
  const columns = new Set<string>();
  let started = false;
  let closed = false;
  let depth = 0;
  // Byte offsets of the last token, and of the last one outside the rows: the current row starts after it.
  let lastToken = 0;
  let rowStart = 0;
  let fed = 0;
  // keepStack false: rows already handed over are not kept in the parser's copy of the array.
  const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  parser.onToken = ({ token, offset }) => {
    if (!started && token !== TokenType.LEFT_BRACKET) {
      throw new DatasetFileError('The JSON file must be an array of objects, like [{"column": "value"}]');
    }
    started = true;
    lastToken = offset;
    if (depth <= 1) rowStart = offset;
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  parser.onValue = ({ value, key }) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DatasetFileError(
        `Row ${Number(key) + 1} of the JSON array is ${describe(value)}, not an object`,
      );
    }
    for (const name of Object.keys(value)) columns.add(name);
    batcher.push(value as DatasetRow);
  };
  parser.onEnd = () => {
    closed = true;
  };
  // Only errors out of the parser are about the file; the source's and onBatch's pass through as they are.
  const feed = (step: () => void, failure: (err: Error) => string) => {
    try {
      step();
    } catch (err) {
      throw err instanceof DatasetFileError ? err : new DatasetFileError(failure(err as Error));
    }
  };
  for await (const slice of bytes) {
    feed(
      () => parser.write(slice),
      (err) =>
        closed
          ? 'The JSON file has more content after the end of its array'
          : `The JSON file is invalid: ${jsonReason(err.message, lastToken)}`,
    );
    fed += slice.length;
    if (!closed && fed - rowStart > MAX_ROW_BYTES) {
      const row = batcher.count() + batcher.pending() + 1;
      throw new DatasetFileError(`Row ${row} of the JSON array is larger than ${MAX_ROW_MB} MB`);
    }
    await batcher.drain(false);
  }
  if (!parser.isEnded) {
    feed(
      () => parser.end(),
      () =>
        started
          ? 'The JSON file is incomplete: it ends before its array is closed'
          : 'The file is empty: it has no rows',
    );
  }
  if (!started) throw new DatasetFileError('The file is empty: it has no rows');
  if (batcher.count() + batcher.pending() === 0)
    throw new DatasetFileError('The JSON array is empty: it has no rows');
  return [...columns];
}

/** The parser's reason without its internals, e.g. `Unexpected "}" at byte 9`. */
function jsonReason(message: string, lastToken: number): string {
  const reason = message.replace(/ in state \w+$/, '');
  // The tokenizer says where it stopped; the token parser rejects the last token.
  const tokenizerAt = / at chunk position "\d+" \(absolute position "(\d+)"\)/;
  const located = tokenizerAt.test(reason)
    ? reason.replace(tokenizerAt, ' at byte $1')
    : `${reason} at byte ${lastToken}`;
  return located.length > 200 ? `${located.slice(0, 200)}…` : located;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

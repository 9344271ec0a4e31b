/**
 * Streams an uploaded dataset file (`.csv` or `.json`, up to 100 MB) into dataset rows, in batches the
 * caller writes out before more of the file is read, so memory stays bounded whatever the file size.
 */
import { isUtf8 } from 'node:buffer';
import { JSONParser, TokenType } from '@streamparser/json';
import { MAX_JSON_DEPTH } from '#shared/platform/config.ts';

export type DatasetFileKind = 'csv' | 'json';
/**
 * A CSV row is its values in column order (strings); a JSON row is the object as parsed. `keys` of the
 * result say where each column is in a row: an index, or a property name.
 */
export type DatasetRow = string[] | Record<string, unknown>;

export interface ParsedFile {
  columns: string[];
  keys: (number | string)[];
  rowCount: number;
}

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
): Promise<ParsedFile> {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer');
  const batcher = createBatcher(batchSize, onBatch);
  const bytes = utf8Slices(source);
  const columns = kind === 'csv' ? await parseCsv(bytes, batcher) : await parseJson(bytes, batcher);
  await batcher.drain(true);
  const keys = kind === 'csv' ? columns.map((_, i) => i) : columns;
  return { columns, keys, rowCount: batcher.count() };
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
  const reader = new CsvReader();
  let columns: string[] | undefined;
  const take = async (records: string[][]) => {
    for (const record of records) {
      if (columns === undefined) {
        columns = checkHeader(record);
        continue;
      }
      // A row is the record itself: values in column order, no object per row.
      batcher.push(record);
      if (batcher.full()) await batcher.drain(false);
    }
  };
  let atFileStart = true;
  for await (const slice of bytes) {
    let text = slice.toString('utf8');
    if (atFileStart && text.length > 0) {
      atFileStart = false;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    await take(reader.read(text, false));
  }
  await take(reader.read('', true));
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

const BOM = 0xfeff;
const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;
const TOO_LARGE = `is larger than ${MAX_ROW_MB} MB; check for a quote that is never closed`;

/**
 * RFC 4180 CSV, read from decoded text: fields separated by commas, records by LF, CRLF or CR, blank
 * lines skipped; a field in double quotes may hold commas, line breaks and doubled quotes. Every record
 * must have as many fields as the first one, the header. Built for speed: the worker spent over half
 * its time in csv-parse, which looks at each byte in JS, while here `indexOf` finds the next comma,
 * quote or line break natively and values are slices of the text.
 *
 * `read` takes the file's text piece by piece and answers the records completed so far; a record cut by
 * the end of a piece waits for the next one. Line numbers, needed only for messages, are counted over
 * the text as it is consumed.
 */
class CsvReader {
  /** Records read, the header included: the data row number of the next record. */
  private records = 0;
  private width = -1;
  /** Text of a record not yet complete, and the line it starts on. */
  private rest = '';
  private line = 1;
  /** Pieces held back while a long record waits for at least as much text as it already has. */
  private held: string[] = [];
  private heldLength = 0;

  read(piece: string, final: boolean): string[][] {
    // Re-reading a long incomplete record on every small piece would cost its length each time: wait
    // for as much new text as it has (so at most twice the row limit is held).
    const waiting = this.heldLength + piece.length;
    if (
      !final &&
      this.rest.length > 0 &&
      waiting < this.rest.length &&
      this.rest.length + waiting <= MAX_ROW_BYTES
    ) {
      this.held.push(piece);
      this.heldLength += piece.length;
      return [];
    }
    const text = this.held.length ? this.rest + this.held.join('') + piece : this.rest + piece;
    this.held = [];
    this.heldLength = 0;
    const out: string[][] = [];
    const consumed = this.scan(text, final, out);
    this.line += lineBreaks(text, 0, consumed);
    this.rest = consumed < text.length ? text.slice(consumed) : '';
    if (this.rest.length > MAX_ROW_BYTES) throw this.error(this.rest, 0, TOO_LARGE);
    return out;
  }

  /** Appends the complete records of `text` to `out`; answers where the first incomplete one starts. */
  private scan(text: string, final: boolean, out: string[][]): number {
    const n = text.length;
    // Next comma, line break and quote at or after the cursor (n: none), found again once passed.
    let commaAt = -1;
    let lfAt = -1;
    let crAt = -1;
    let quoteAt = -1;
    let pos = 0;
    while (pos < n) {
      const start = pos;
      const first = text.charCodeAt(pos);
      if (first === LF || first === CR) {
        // A blank line; a CR at the end may be half of a CRLF.
        if (first === CR && pos + 1 === n && !final) return start;
        pos += first === CR && text.charCodeAt(pos + 1) === LF ? 2 : 1;
        continue;
      }
      const fields: string[] = [];
      let p = pos;
      let end: number; // where the record's line break is (n: the end of the text)
      for (;;) {
        if (text.charCodeAt(p) === QUOTE) {
          let from = p + 1;
          let doubled = false;
          let close: number;
          for (;;) {
            close = text.indexOf('"', from);
            if (close === -1) {
              if (!final) return start;
              if (n - start > MAX_ROW_BYTES) throw this.error(text, start, TOO_LARGE);
              throw new DatasetFileError(
                `The CSV has unbalanced quotes: a quoted field in row ${this.records} is never closed`,
              );
            }
            if (close + 1 === n && !final) return start; // a doubled quote may follow
            if (text.charCodeAt(close + 1) !== QUOTE) break;
            doubled = true;
            from = close + 2;
          }
          const value = text.slice(p + 1, close);
          fields.push(doubled ? value.replaceAll('""', '"') : value);
          p = close + 1;
          const next = p < n ? text.charCodeAt(p) : LF;
          if (next === COMMA) {
            p++;
            continue;
          }
          if (next !== LF && next !== CR) {
            throw this.error(text, p, 'has text after the closing quote of a field');
          }
          end = p;
          break;
        }
        if (commaAt < p) commaAt = indexOrEnd(text, ',', p);
        if (lfAt < p) lfAt = indexOrEnd(text, '\n', p);
        if (crAt < p) crAt = indexOrEnd(text, '\r', p);
        const stop = Math.min(commaAt, lfAt, crAt);
        if (stop === n && !final) return start;
        if (quoteAt < p) quoteAt = indexOrEnd(text, '"', p);
        if (quoteAt < stop) {
          throw this.error(
            text,
            quoteAt,
            'has a quote inside an unquoted field; quote the field and double the quotes inside it',
          );
        }
        fields.push(text.slice(p, stop));
        if (stop === commaAt && stop < n) {
          p = stop + 1;
          continue;
        }
        end = stop;
        break;
      }
      if (end < n && text.charCodeAt(end) === CR && end + 1 === n && !final) return start;
      if (end - start > MAX_ROW_BYTES) throw this.error(text, start, TOO_LARGE);
      if (this.width === -1) this.width = fields.length;
      else if (fields.length !== this.width) {
        throw this.error(text, end, `has ${fields.length} fields; every row must have one per header column`);
      }
      this.records++;
      out.push(fields);
      pos = end === n ? n : end + (text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? 2 : 1);
    }
    return pos;
  }

  /** About the record being read, at `at` in the text (which starts at this.line). */
  private error(text: string, at: number, what: string): DatasetFileError {
    const line = this.line + lineBreaks(text, 0, at);
    return new DatasetFileError(`The CSV row ${this.records} (line ${line}) ${what}`);
  }
}

function indexOrEnd(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

/** Line breaks (LF, CRLF or a lone CR) in text[from, to). */
function lineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  for (let i = text.indexOf('\r', from); i !== -1 && i < to; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== LF) n++;
  }
  return n;
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
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      // The array is depth 1 and a row depth 2: a row may nest as deep as a request body. Refused while
      // the parser builds the row, before anything (JSON.stringify when it is stored) recurses into it.
      if (++depth > MAX_JSON_DEPTH + 1) {
        const row = batcher.count() + batcher.pending() + 1;
        throw new DatasetFileError(
          `Row ${row} of the JSON array is nested more than ${MAX_JSON_DEPTH} levels deep (at byte ${offset})`,
        );
      }
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
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

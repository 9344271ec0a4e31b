import { getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { chunkKey } from './keys.ts';

/**
 * Dataset rows live in S3, never in the table: chunks of about CHUNK_BYTES each, written once
 * and never changed, plus one manifest per dataset state listing them. A dataset item points at its
 * manifest, so installing a new set of rows is one conditional write of that pointer, and a copy of a
 * dataset can share the chunks of its source.
 *
 * A chunk's rows are JSON arrays (a CSV file's values in column order) or objects (a JSON file's rows,
 * a log job's `v:`/`f:` keys); `layouts` say where in a row each column is, an index or a key (null:
 * none), so chunks written with different layouts share one manifest.
 */
export interface ChunkRef {
  key: string;
  rows: number;
  bytes: number;
  /** Index into `layouts`. */
  layout: number;
}

export interface Manifest {
  v: 1;
  columns: string[];
  rowCount: number;
  layouts: LayoutKey[][];
  chunks: ChunkRef[];
}

/** Where a column is in a stored row: an array index, an object key, or null (not in these rows). */
export type LayoutKey = number | string | null;
export type StoredRow = unknown[] | Record<string, unknown>;

const CHUNK_BYTES = 2 * 1024 * 1024;
const CHUNK_MAX_ROWS = 10_000;
const PUTS_IN_FLIGHT = 8;
/** A chunk line holds a group of rows: one JSON.stringify per group is ~2.5x faster than one per row. */
const LINE_BYTES = 256 * 1024;
const LINE_MAX_ROWS = 1000;
/** A chunk's buffer: a full chunk plus the largest line that can start in it. */
const CHUNK_CAPACITY = CHUNK_BYTES + 3 * LINE_BYTES + 1;
const NEWLINE = 0x0a;

/**
 * Writes rows as chunks below a job's prefix, a few uploads in flight; `add` waits while they are, so
 * memory stays bounded by a few chunks whatever the number of rows. A chunk is JSON lines, each line an
 * array of rows; the rows per line adapt so that a line stays near LINE_BYTES however large rows are.
 * Lines are encoded straight into the chunk's buffer (no joined string to copy first).
 * Chunk keys follow from the job and a sequence number, so a job run again writes the same keys.
 */
export class ChunkWriter {
  private readonly workspaceId: number;
  private readonly datasetId: number;
  private readonly jobId: string;
  private body = Buffer.allocUnsafe(CHUNK_CAPACITY);
  private used = 0;
  private pendingRows = 0;
  // The first line holds one row; its size tells how many the next lines can hold.
  private rowsPerLine = 1;
  private seq = 0;
  private readonly chunks: ChunkRef[] = [];
  private readonly inFlight: Promise<void>[] = [];

  constructor(workspaceId: number, datasetId: number, jobId: string) {
    this.workspaceId = workspaceId;
    this.datasetId = datasetId;
    this.jobId = jobId;
  }

  async add(rows: readonly StoredRow[]): Promise<void> {
    for (let at = 0; at < rows.length; ) {
      const group =
        at === 0 && rows.length <= this.rowsPerLine ? rows : rows.slice(at, at + this.rowsPerLine);
      const line = JSON.stringify(group);
      at += group.length;
      const fit = Math.floor((group.length * LINE_BYTES) / line.length);
      this.rowsPerLine = Math.max(1, Math.min(LINE_MAX_ROWS, fit));
      // A UTF-16 unit is at most 3 UTF-8 bytes: room for that is room enough.
      const room = line.length * 3 + 1;
      if (this.used > 0 && this.used + room > this.body.length) await this.flush();
      if (room > this.body.length) this.body = Buffer.allocUnsafe(room); // one huge row
      this.used += this.body.write(line, this.used, 'utf8');
      this.body[this.used++] = NEWLINE;
      this.pendingRows += group.length;
      if (this.used >= CHUNK_BYTES || this.pendingRows >= CHUNK_MAX_ROWS) await this.flush();
    }
  }

  /** Writes what is left; answers the chunks in row order. */
  async finish(): Promise<ChunkRef[]> {
    if (this.used > 0) await this.flush();
    await Promise.all(this.inFlight);
    return this.chunks;
  }

  private async flush(): Promise<void> {
    const body = this.body.subarray(0, this.used);
    const ref: ChunkRef = {
      key: chunkKey(this.workspaceId, this.datasetId, this.jobId, ++this.seq),
      rows: this.pendingRows,
      bytes: body.length,
      layout: 0,
    };
    this.chunks.push(ref);
    // The upload owns the full buffer now; the next chunk gets a new one.
    this.body = Buffer.allocUnsafe(CHUNK_CAPACITY);
    this.used = 0;
    this.pendingRows = 0;
    if (this.inFlight.length >= PUTS_IN_FLIGHT) await this.inFlight.shift();
    const put = putObject(ref.key, body, 'application/x-ndjson');
    put.catch(() => undefined); // awaited later; a failure surfaces there
    this.inFlight.push(put);
  }
}

/** The manifest of freshly written chunks, all of one layout. */
export function newManifest(columns: string[], keys: LayoutKey[], chunks: ChunkRef[]): Manifest {
  return {
    v: 1,
    columns,
    rowCount: chunks.reduce((sum, chunk) => sum + chunk.rows, 0),
    layouts: [keys],
    chunks: chunks.map((chunk) => ({ ...chunk, layout: 0 })),
  };
}

/** `added`'s rows after `base`'s: columns are united by name, each chunk keeps its own layout. */
export function appendManifest(base: Manifest | undefined, added: Manifest): Manifest {
  if (!base || base.rowCount === 0) return added;
  const columns = [...base.columns];
  for (const column of added.columns) if (!columns.includes(column)) columns.push(column);
  const relayout = (from: Manifest) =>
    from.layouts.map((keys) =>
      columns.map((column) => {
        const at = from.columns.indexOf(column);
        return at === -1 ? null : (keys[at] ?? null);
      }),
    );
  const offset = base.layouts.length;
  return {
    v: 1,
    columns,
    rowCount: base.rowCount + added.rowCount,
    layouts: [...relayout(base), ...relayout(added)],
    chunks: [...base.chunks, ...added.chunks.map((chunk) => ({ ...chunk, layout: chunk.layout + offset }))],
  };
}

export async function writeManifest(key: string, manifest: Manifest): Promise<void> {
  await putObject(key, JSON.stringify(manifest));
}

// Manifests never change once written, so a container may keep the ones it read.
const MANIFEST_CACHE_SIZE = 64;
const manifestCache = new Map<string, Manifest>();

export async function readManifest(key: string): Promise<Manifest> {
  const cached = manifestCache.get(key);
  if (cached) return cached;
  const manifest = JSON.parse(await getObjectText(key)) as Manifest;
  if (manifestCache.size >= MANIFEST_CACHE_SIZE) manifestCache.delete(manifestCache.keys().next().value!);
  manifestCache.set(key, manifest);
  return manifest;
}

/** A chunk's rows as cell values in column order. */
export async function readChunk(manifest: Manifest, chunk: ChunkRef): Promise<unknown[][]> {
  const text = await getObjectText(chunk.key);
  const keys = manifest.layouts[chunk.layout] ?? [];
  const rows: unknown[][] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    for (const row of JSON.parse(line) as Record<number | string, unknown>[]) {
      rows.push(keys.map((key) => (key === null ? null : (row[key] ?? null))));
    }
  }
  return rows;
}

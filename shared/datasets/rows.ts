import { notFound } from '#shared/platform/errors.ts';
import { type ChunkRef, type Manifest, readChunk, readManifest } from './manifest.ts';
import { getDataset } from './repository.ts';

/**
 * GET /api/public/v2/datasets/{dataset_id}/rows. Without `q` a page costs the manifest (cached) and the
 * one or two chunks that hold it. With `q` every chunk is read in order (two ahead), since any row may
 * match: the cost grows with the dataset (about 1 MB per chunk), which docs/datasets.md states.
 */
export interface DatasetCell {
  type: 'dataset';
  value: unknown;
}

export interface DatasetRowsPage {
  success: true;
  message: string;
  columns: string[];
  rows: DatasetCell[][];
  page: number;
  per_page: number;
  pages: number;
  total: number;
}

export interface RowsQuery {
  page: number;
  per_page: number;
  q?: string;
}

const toCells = (values: unknown[]): DatasetCell[] => values.map((value) => ({ type: 'dataset', value }));

export async function datasetRows(
  workspaceId: number,
  datasetId: number,
  query: RowsQuery,
): Promise<DatasetRowsPage> {
  const dataset = await getDataset(workspaceId, datasetId);
  if (!dataset) throw notFound(`Dataset ${datasetId} not found`);
  const answer = (columns: string[], rows: unknown[][], total: number): DatasetRowsPage => ({
    success: true,
    message: 'success',
    columns,
    rows: rows.map(toCells),
    page: query.page,
    per_page: query.per_page,
    pages: Math.ceil(total / query.per_page),
    total,
  });
  if (!dataset.manifestKey) return answer(dataset.columns, [], 0);

  const manifest = await readManifest(dataset.manifestKey);
  const offset = (query.page - 1) * query.per_page;
  const q = query.q?.trim();
  if (q) {
    const { rows, total } = await searchRows(manifest, q.toLowerCase(), offset, query.per_page);
    return answer(manifest.columns, rows, total);
  }
  return answer(manifest.columns, await rowWindow(manifest, offset, query.per_page), manifest.rowCount);
}

/**
 * Rows [offset, offset + count) of the dataset, reading only the chunks that hold them (with `read`, a
 * caller's own reader, e.g. one that keeps the chunks it read: they never change).
 */
export async function rowWindow(
  manifest: Manifest,
  offset: number,
  count: number,
  read: ChunkReader = readChunk,
): Promise<unknown[][]> {
  const wanted: { chunk: ChunkRef; from: number; to: number }[] = [];
  let start = 0;
  for (const chunk of manifest.chunks) {
    const end = start + chunk.rows;
    if (end > offset && start < offset + count) {
      wanted.push({
        chunk,
        from: Math.max(0, offset - start),
        to: Math.min(chunk.rows, offset + count - start),
      });
    }
    if (end >= offset + count) break;
    start = end;
  }
  const parts = await Promise.all(
    wanted.map(async ({ chunk, from, to }) => (await read(manifest, chunk)).slice(from, to)),
  );
  return parts.flat();
}

/** Reads a chunk's rows (rowWindow's `read`). */
export type ChunkReader = (manifest: Manifest, chunk: ChunkRef) => Promise<unknown[][]>;

/**
 * A chunk reader that keeps the last `size` chunks it parsed (chunks never change), for a caller that
 * reads consecutive windows: each chunk is then fetched once, however small the windows.
 */
export function keepingChunkReader(size: number): ChunkReader {
  const kept = new Map<string, Promise<unknown[][]>>();
  return (manifest, chunk) => {
    const cached = kept.get(chunk.key);
    if (cached) return cached;
    const read = readChunk(manifest, chunk);
    read.catch(() => kept.delete(chunk.key));
    if (kept.size >= size) kept.delete(kept.keys().next().value!);
    kept.set(chunk.key, read);
    return read;
  };
}

const READ_AHEAD = 2;

async function searchRows(manifest: Manifest, needle: string, offset: number, count: number) {
  const rows: unknown[][] = [];
  let total = 0;
  const reads: Promise<unknown[][]>[] = [];
  const { chunks } = manifest;
  const startRead = (i: number) => {
    const chunk = chunks[i];
    if (!chunk) return;
    const read = readChunk(manifest, chunk);
    read.catch(() => undefined); // awaited in turn
    reads.push(read);
  };
  for (let i = 0; i < READ_AHEAD; i++) startRead(i);
  for (let i = 0; i < chunks.length; i++) {
    startRead(i + READ_AHEAD);
    for (const row of await reads.shift()!) {
      if (!row.some((value) => cellMatches(value, needle))) continue;
      if (total >= offset && total < offset + count) rows.push(row);
      total++;
    }
  }
  return { rows, total };
}

function cellMatches(value: unknown, needle: string): boolean {
  if (value === null || value === undefined) return false;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.toLowerCase().includes(needle);
}

import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReportRecord } from '#shared/reports/records.ts';
import { readRowCells } from '#shared/reports/run/cells.ts';

/**
 * Reading a run's cells whose values are held in S3: loaded, or past a byte budget only sized, so a
 * reader holds a bounded amount whatever the cells' sizes.
 */
const bucket = vi.hoisted(() => ({
  objects: new Map<string, string>(),
  gets: [] as string[],
  heads: [] as string[],
}));

vi.mock('#shared/platform/blob-store.ts', () => ({
  getObjectText: async (key: string) => {
    bucket.gets.push(key);
    return bucket.objects.get(key)!;
  },
  headObject: async (key: string) => {
    bucket.heads.push(key);
    return { contentLength: Buffer.byteLength(bucket.objects.get(key)!), etag: undefined };
  },
}));

const ROWS = 12;
const BATCH = 4;
/** Row r's cell of column 1 is inline; column 2's is in S3 (`{v, e}` of 1,000 + r bytes of text). */
vi.mock('#shared/reports/run/batches.ts', () => ({
  batchOfKey: (sk: string) => Number(sk.slice(2)),
  queryBatches: async () =>
    Array.from({ length: ROWS / BATCH }, (_, batch) => ({
      SK: `B#${batch}`,
      status: 'DONE',
      cells: JSON.stringify(
        Array.from({ length: BATCH }, (_, i) => ({
          1: { s: 'COMPLETED', v: batch * BATCH + i },
          2: { s: 'COMPLETED', k: `cell-${batch * BATCH + i}` },
        })),
      ),
    })),
}));
vi.mock('#shared/reports/head.ts', () => ({ readHead: async () => undefined }));
vi.mock('#shared/reports/run/objects.ts', () => ({ loadSnapshot: async () => ({ columns: [] }) }));

const report = {
  id: 1,
  workspaceId: 1,
  run: { number: 1, status: 'COMPLETED', rowCount: ROWS, batchSize: BATCH },
} as unknown as ReportRecord;
const text = (row: number) => 'x'.repeat(1_000 + row);

describe('readRowCells with values in S3', () => {
  beforeEach(() => {
    bucket.gets = [];
    bucket.heads = [];
    for (let row = 0; row < ROWS; row++) {
      bucket.objects.set(`cell-${row}`, JSON.stringify({ v: text(row), e: null }));
    }
  });

  it('loads every value without a budget', async () => {
    const rows = await readRowCells(report, 0, ROWS);
    expect(rows.map((cells) => cells.get(2)?.value)).toEqual(Array.from({ length: ROWS }, (_, r) => text(r)));
    expect(rows.map((cells) => cells.get(1)?.value)).toEqual(Array.from({ length: ROWS }, (_, r) => r));
    expect(bucket.heads).toEqual([]);
  });

  it('stops loading once the budget is spent, sizing the rest', async () => {
    const rows = await readRowCells(report, 0, ROWS, { valueBudgetBytes: 5_000 });
    const loaded = rows.filter((cells) => cells.get(2)?.value !== null);
    const sized = rows.filter((cells) => cells.get(2)?.omittedBytes !== undefined);
    // A few loads run at once: at most 4 past the budget's 5 values.
    expect(bucket.gets.length).toBeGreaterThanOrEqual(5);
    expect(bucket.gets.length).toBeLessThanOrEqual(8);
    expect(loaded).toHaveLength(bucket.gets.length);
    expect(sized).toHaveLength(ROWS - bucket.gets.length);
    expect(bucket.heads.length + bucket.gets.length).toBe(ROWS);
    for (const cells of sized) {
      const row = cells.get(1)!.value as number;
      expect(cells.get(2)).toEqual({
        status: 'COMPLETED',
        value: null,
        error_message: null,
        omittedBytes: Buffer.byteLength(JSON.stringify({ v: text(row), e: null })),
      });
    }
    // Rows come back in order, the earlier ones loaded first.
    expect(rows.map((cells) => cells.get(1)?.value)).toEqual(Array.from({ length: ROWS }, (_, r) => r));
    expect(loaded.map((cells) => cells.get(1)!.value)).toEqual(
      Array.from({ length: loaded.length }, (_, r) => r),
    );
  });
});

import type { CellStatus, ReportRecord } from '../records.ts';

/**
 * CONTRACT STUB (the run part replaces the bodies; keep names and signatures).
 * The cells of a report's latest run, as the rows endpoint and the score read them.
 */
export interface Cell {
  status: CellStatus;
  value: unknown;
  error_message: string | null;
}

/**
 * Cells of rows [fromRow, fromRow + count) of the report's latest run, one map (column id -> cell) per
 * row; a column the run did not have (added since, or no run yet) is absent from the map.
 */
export async function readRowCells(
  _report: ReportRecord,
  _fromRow: number,
  _count: number,
): Promise<Map<number, Cell>[]> {
  throw new Error('not implemented');
}

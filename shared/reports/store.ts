import type { ReportColumn, ReportRecord } from './records.ts';

/**
 * CONTRACT STUB (the definitions part replaces the bodies; keep names and signatures).
 * The report head and its columns: reads and writes every route of the feature goes through.
 */

/** The workspace's report of that id, or undefined (another workspace's, unknown, or deleted unless asked). */
export async function getReport(
  _ws: number,
  _reportId: number,
  _options: { includeDeleted?: boolean; consistent?: boolean } = {},
): Promise<ReportRecord | undefined> {
  throw new Error('not implemented');
}

/** As getReport, or a 404 "Report <id> not found". */
export async function requireReport(_ws: number, _reportId: number): Promise<ReportRecord> {
  throw new Error('not implemented');
}

/** The report's evaluation columns, ordered by position. */
export async function listColumns(_ws: number, _reportId: number): Promise<ReportColumn[]> {
  throw new Error('not implemented');
}

/**
 * A copy of `source` for a named run: a new report (not a blueprint, `parentReportId` = source's id)
 * with the source's dataset version, score configuration and columns (new ids), and no run yet.
 */
export async function copyReport(
  _source: ReportRecord,
  _name: string,
  _caller: { userId: number; userEmail?: string },
): Promise<ReportRecord> {
  throw new Error('not implemented');
}

import type { ReportColumn } from './records.ts';

/**
 * CONTRACT STUB (the definitions part replaces the bodies; keep names and signatures).
 * Column rules: which types run here, configuration checks per type, and what a column reads.
 */

/**
 * The names of the earlier evaluation columns `column` reads (a dependency that FAILED makes the cell
 * FAILED without running it). `columns` are the report's columns ordered by position.
 */
export function columnDependencies(column: ReportColumn, columns: readonly ReportColumn[]): string[] {
  return columns.filter((other) => other.position < column.position).map((other) => other.name);
}

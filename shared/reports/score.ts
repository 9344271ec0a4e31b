import { readManifest } from '#shared/datasets/manifest.ts';
import { getDataset } from '#shared/datasets/repository.ts';
import { keepingChunkReader, rowWindow } from '#shared/datasets/rows.ts';
import { clip } from '#shared/platform/errors.ts';
import { SANDBOX_LIMITS } from '#shared/sandbox/limits.ts';
import { type SandboxPort, sandboxPort } from '#shared/sandbox/sandbox.ts';
import type { ReportColumn, ReportRecord, ReportScore, ScoreConfiguration } from './records.ts';
import { type Cell, readRowCells } from './run/cells.ts';

/**
 * The score of a report's latest run (docs/reports.md, "Scores and results").
 *
 * Built-in: each column marked `isPartOfScore` scores the share of its `true` cells x 100 when its
 * values are booleans, their average when they are numbers; other values, failed cells and cells the
 * run did not fill are skipped (`num_skipped`). One column: `single_column`; several: `multi_column`,
 * the mean of the column scores that have one; none marked: `none`.
 *
 * Custom (`scoreConfiguration`, JavaScript only): the code is a function body that sees `data`, one
 * object per row (dataset columns, then evaluation columns by name; a failed cell reads as null), and
 * returns an object whose `score` is a number 0..100. Anything else is a ScoreError.
 *
 * Rows are read a page at a time: built-in scoring keeps one tally per scored column and reads only
 * the cells (never the dataset's rows), so memory does not grow with the report; custom scoring builds
 * `data` up to the sandbox's input limit and fails beyond it.
 */

/** The most of a score error's message that is stored (user code may throw anything). */
export const MAX_SCORE_ERROR_CHARS = 4096;

/** A score that could not be computed: its message (clipped) is stored as `score_calculation_error`. */
export class ScoreError extends Error {
  override name = 'ScoreError';
  constructor(message: string) {
    super(clip(message, MAX_SCORE_ERROR_CHARS));
  }
}

/**
 * The most JSON a score code's `matrix` may be: the score is kept on the report's item (with the run's
 * state and the score code), and every report of a list page (up to 100) answers it twice (`score` and
 * `score_matrix`) within Lambda's 6 MB.
 */
export const MAX_SCORE_MATRIX_BYTES = 16 * 1024;

/** Rows read per page: of the scored columns' cells for the built-in score. */
export const SCORE_PAGE_ROWS = 500;
/**
 * Rows read per page for the score code, which needs every column's values (big ones loaded from S3):
 * fewer, so that what is held past the sandbox's input limit when the score stops stays small.
 */
export const SCORE_CODE_PAGE_ROWS = 50;

// ---------------------------------------------------------------------------------------------------
// The arithmetic (pure)

/** What one scored column has seen so far. */
export interface ColumnTally {
  name: string;
  trues: number;
  booleans: number;
  numberSum: number;
  numbers: number;
  /** Cells that are neither booleans nor finite numbers, failed, or not filled. */
  others: number;
}

export const newTally = (name: string): ColumnTally => ({
  name,
  trues: 0,
  booleans: 0,
  numberSum: 0,
  numbers: 0,
  others: 0,
});

/** Counts one cell into its column's tally (`undefined`: the run did not fill it). */
export function tallyCell(tally: ColumnTally, cell: Cell | undefined): void {
  if (cell?.status === 'COMPLETED' && typeof cell.value === 'boolean') {
    tally.booleans++;
    if (cell.value) tally.trues++;
  } else if (cell?.status === 'COMPLETED' && typeof cell.value === 'number' && Number.isFinite(cell.value)) {
    tally.numbers++;
    tally.numberSum += cell.value;
  } else {
    tally.others++;
  }
}

export type ColumnScore = {
  column_name: string;
  score: number | null;
  /** `boolean`: share of true cells x 100; `numeric`: the average; null: nothing to score. */
  score_type: 'boolean' | 'numeric' | null;
  num_skipped: number;
};

/**
 * A column's score. Its kind is that of most of its scorable values (booleans on a tie); values of the
 * other kind are skipped with the rest.
 */
export function columnScore(tally: ColumnTally): ColumnScore {
  const total = tally.booleans + tally.numbers + tally.others;
  if (tally.booleans === 0 && tally.numbers === 0) {
    return { column_name: tally.name, score: null, score_type: null, num_skipped: total };
  }
  if (tally.booleans >= tally.numbers) {
    return {
      column_name: tally.name,
      score: (tally.trues / tally.booleans) * 100,
      score_type: 'boolean',
      num_skipped: total - tally.booleans,
    };
  }
  return {
    column_name: tally.name,
    score: tally.numberSum / tally.numbers,
    score_type: 'numeric',
    num_skipped: total - tally.numbers,
  };
}

export const NO_SCORE_COLUMNS_MESSAGE = 'No columns are part of the score';

/** The built-in score from the tallies of the scored columns (in position order). */
export function builtInScore(tallies: readonly ColumnTally[]): ReportScore {
  if (tallies.length === 0) return noScore(NO_SCORE_COLUMNS_MESSAGE);
  const columns = tallies.map(columnScore);
  if (columns.length === 1) {
    const only = columns[0]!;
    return {
      overall_score: only.score,
      score_type: 'single_column',
      has_custom_scoring: false,
      details: only,
    };
  }
  const scored = columns.filter((column) => column.score !== null);
  const overall =
    scored.length === 0 ? null : scored.reduce((sum, column) => sum + (column.score ?? 0), 0) / scored.length;
  return {
    overall_score: overall,
    score_type: 'multi_column',
    has_custom_scoring: false,
    details: { columns },
  };
}

/** `score_type: "none"`: nothing to score, or not yet. */
export const noScore = (message: string): ReportScore => ({
  overall_score: null,
  score_type: 'none',
  has_custom_scoring: false,
  details: { message },
});

/** The custom score from what the score code returned; a ScoreError when it is not a score. */
export function customScore(returned: unknown, configuration: ScoreConfiguration): ReportScore {
  if (returned === null || typeof returned !== 'object' || Array.isArray(returned)) {
    throw new ScoreError('the score code must return an object with a numeric "score" from 0 to 100');
  }
  const { score, matrix } = returned as { score?: unknown; matrix?: unknown };
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100) {
    throw new ScoreError(
      `the score code returned ${describe(score)} as "score": it must be a number from 0 to 100`,
    );
  }
  const kept = Array.isArray(matrix) ? matrix : [];
  const bytes = Buffer.byteLength(JSON.stringify(kept));
  if (bytes > MAX_SCORE_MATRIX_BYTES) {
    throw new ScoreError(
      `the score code returned a matrix too large to keep: ${bytes} bytes of JSON, the limit is ${MAX_SCORE_MATRIX_BYTES / 1024} KB`,
    );
  }
  return {
    overall_score: score,
    score_type: 'custom',
    has_custom_scoring: true,
    details: { matrix: kept, configuration: { ...configuration } },
  };
}

/** What a report with a score configuration answers when its code failed. */
export const failedCustomScore = (configuration: ScoreConfiguration, error: string): ReportScore => ({
  overall_score: null,
  score_type: 'custom',
  has_custom_scoring: true,
  details: { matrix: [], configuration: { ...configuration }, error },
});

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  return `a ${Array.isArray(value) ? 'array' : typeof value}`;
}

// ---------------------------------------------------------------------------------------------------
// Reading the run

export async function computeReportScore(
  report: ReportRecord,
  columns: readonly ReportColumn[],
  ports: { sandbox: SandboxPort } = { sandbox: sandboxPort },
): Promise<ReportScore> {
  const ordered = [...columns].sort((a, b) => a.position - b.position);
  if (report.scoreConfiguration)
    return runScoreCode(report, ordered, report.scoreConfiguration, ports.sandbox);
  const tallies = ordered
    .filter((column) => column.isPartOfScore)
    .map((column) => ({ column, tally: newTally(column.name) }));
  if (tallies.length === 0) return noScore(NO_SCORE_COLUMNS_MESSAGE);
  const rowCount = report.run?.rowCount ?? 0;
  // Only the scored columns' cells: another column's big values (held in S3) are never loaded.
  const scored = { columns: new Set(tallies.map(({ column }) => column.id)) };
  for (let from = 0; from < rowCount; from += SCORE_PAGE_ROWS) {
    const rows = await readRowCells(report, from, Math.min(SCORE_PAGE_ROWS, rowCount - from), scored);
    for (const cells of rows) for (const { column, tally } of tallies) tallyCell(tally, cells.get(column.id));
  }
  return builtInScore(tallies.map(({ tally }) => tally));
}

async function runScoreCode(
  report: ReportRecord,
  columns: readonly ReportColumn[],
  configuration: ScoreConfiguration,
  sandbox: SandboxPort,
): Promise<ReportScore> {
  if (configuration.code_language !== 'JAVASCRIPT') {
    throw new ScoreError(`code_language ${configuration.code_language} is not supported`);
  }
  const data: Record<string, unknown>[] = [];
  let bytes = 2;
  for await (const row of reportRowObjects(report, columns)) {
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes > SANDBOX_LIMITS.maxInputBytes) {
      throw new ScoreError(
        `the report's rows are too large for the score code: more than ${SANDBOX_LIMITS.maxInputBytes / 1024 / 1024} MB of JSON`,
      );
    }
    data.push(row);
  }
  const result = await sandbox.runJavaScript({
    workspaceId: report.workspaceId,
    code: configuration.code,
    data,
    timeoutMs: SANDBOX_LIMITS.defaultTimeoutMs,
    memoryBytes: SANDBOX_LIMITS.memoryBytes,
  });
  if (!result.ok) throw new ScoreError(`the score code failed: ${result.error}`);
  return customScore(result.value, configuration);
}

/**
 * The rows of the report's latest run as objects, a page at a time: dataset values by column name,
 * then each evaluation column's value by name (null when it failed or the run did not fill it).
 */
export async function* reportRowObjects(
  report: ReportRecord,
  columns: readonly ReportColumn[],
): AsyncGenerator<Record<string, unknown>> {
  const rowCount = report.run?.rowCount ?? 0;
  if (rowCount === 0) return;
  const dataset = await getDataset(report.workspaceId, report.datasetId, { includeExpired: true });
  const manifest = dataset?.manifestKey ? await readManifest(dataset.manifestKey) : undefined;
  // Pages are small and in order: each chunk is fetched once.
  const read = keepingChunkReader(2);
  for (let from = 0; from < rowCount; from += SCORE_CODE_PAGE_ROWS) {
    const count = Math.min(SCORE_CODE_PAGE_ROWS, rowCount - from);
    const [values, cells] = await Promise.all([
      manifest ? rowWindow(manifest, from, count, read) : Promise.resolve([]),
      readRowCells(report, from, count),
    ]);
    for (let i = 0; i < cells.length; i++) {
      const row: Record<string, unknown> = Object.create(null);
      manifest?.columns.forEach((name, at) => {
        row[name] = values[i]?.[at] ?? null;
      });
      for (const column of columns) {
        const cell = cells[i]!.get(column.id);
        row[column.name] = cell?.status === 'COMPLETED' ? cell.value : null;
      }
      yield row;
    }
  }
}

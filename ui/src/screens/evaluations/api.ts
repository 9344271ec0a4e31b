import { api } from '../../api/client.ts';

/** What the evaluation routes answer (docs/reports.md), as far as this screen reads it. */

export type CellStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'NOT_RUN';
export interface StatusCounts {
  COMPLETED: number;
  FAILED: number;
  QUEUED: number;
  RUNNING: number;
}

export interface Score {
  score_type?: 'none' | 'single_column' | 'multi_column' | 'custom';
  overall_score?: number | null;
  details?: Record<string, unknown>;
}

export interface Report {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
  score: Score | null;
  score_calculation_error: string | null;
  parent_report_id: number | null;
  dataset_id: number;
  dataset_group_id: number;
  dataset_version_number: number;
  tags: string[];
  status: 'RUNNING' | 'COMPLETED';
  stats: { status_counts: StatusCounts };
}

export interface ReportColumn {
  id: number;
  name: string;
  column_type: string;
  position: number;
  is_part_of_score: boolean;
  configuration: Record<string, unknown>;
  score: number | null;
}

export interface ReportView {
  report: Omit<Report, 'status' | 'stats'>;
  status: 'RUNNING' | 'COMPLETED';
  stats: { status_counts: StatusCounts };
  report_columns: ReportColumn[];
}

export type RowCell =
  | { type: 'dataset'; value: unknown; value_omitted_bytes?: number }
  | {
      type: 'eval';
      status: CellStatus;
      value: unknown;
      error_message?: string | null;
      /** The request log the cell's node recorded (PROMPT_TEMPLATE, LLM_ASSERTION). */
      request_log_id?: number;
      value_omitted_bytes?: number;
    };

export interface RowsPage {
  columns: string[];
  rows: RowCell[][];
  total: number;
}

export const EVALUATIONS = '/api/public/v2/evaluations';

export const readReport = (id: number, signal?: AbortSignal) =>
  api<ReportView>('GET', `/reports/${id}`, { signal });

export const readRows = (id: number, page: number, perPage: number, signal?: AbortSignal) =>
  api<RowsPage>('GET', `${EVALUATIONS}/${id}/rows`, { query: { page, per_page: perPage }, signal });

/** Runs the report in place, or a copy of it under `name`: the id of the report that runs. */
export const runReport = (id: number, name?: string) =>
  api<{ report_id: number }>('POST', `/reports/${id}/run`, { body: name ? { name } : {} }).then(
    (answer) => answer.report_id,
  );

export const renameReport = (id: number, changes: { name?: string; tags?: string[] }) =>
  api('PATCH', `/reports/${id}/rename`, { body: changes });

/** The number shown for a score: the overall score, null when there is none (not run, nothing scored). */
export const overallScore = (score: Score | null | undefined): number | null =>
  typeof score?.overall_score === 'number' ? score.overall_score : null;

export const formatScore = (score: number | null): string =>
  score === null ? '–' : `${Number.isInteger(score) ? score : score.toFixed(1)}`;

/**
 * A run's progress in rows. The API counts cells (status_counts); a batch's cells are counted together
 * and a batch is whole rows x every column, so done cells / columns is the rows done.
 */
export function rowProgress(counts: StatusCounts, columns: number): { done: number; total: number } {
  const done = counts.COMPLETED + counts.FAILED;
  const total = done + counts.QUEUED + counts.RUNNING;
  if (columns <= 0) return { done: 0, total: 0 };
  return { done: Math.floor(done / columns), total: Math.ceil(total / columns) };
}

/** A cell's value as text: strings as they are, anything else as JSON. */
export const valueText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

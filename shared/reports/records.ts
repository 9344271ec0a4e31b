/**
 * Evaluation reports (PromptLayer calls them evaluation pipelines): a dataset version plus ordered
 * columns, each a node type of the workflow engine that reads dataset columns and earlier columns by
 * name. A run fills one cell per (row, column). These are the stored shapes every part of the feature
 * shares: the head item (definition + the state of its latest run), the column items, the score.
 */

/** Every column type a client may name (PromptLayer's list); which ones run here: columns.ts. */
export const REPORT_COLUMN_TYPES = [
  'PROMPT_TEMPLATE',
  'CODE_EXECUTION',
  'ENDPOINT',
  'WORKFLOW',
  'MCP',
  'HUMAN',
  'CONVERSATION_SIMULATOR',
  'LLM_ASSERTION',
  'AI_DATA_EXTRACTION',
  'COMPARE',
  'CONTAINS',
  'REGEX',
  'COSINE_SIMILARITY',
  'ABSOLUTE_NUMERIC_DISTANCE',
  'JSON_PATH',
  'XML_PATH',
  'REGEX_EXTRACTION',
  'PARSE_VALUE',
  'VARIABLE',
  'ASSERT_VALID',
  'COALESCE',
  'COMBINE_COLUMNS',
  'COUNT',
  'MATH_OPERATOR',
  'MIN_MAX',
  'APPLY_DIFF',
  'CODING_AGENT',
] as const;
export type ReportColumnType = (typeof REPORT_COLUMN_TYPES)[number];

export interface ScoreConfiguration {
  code: string;
  code_language: 'JAVASCRIPT' | 'PYTHON';
}

/** One evaluation column as stored (`W#<ws>#RPT#<reportId>` / `COL#<id>`). */
export interface ReportColumn {
  id: number;
  reportId: number;
  name: string;
  columnType: ReportColumnType;
  configuration: Record<string, unknown>;
  /** 1-based among the report's evaluation columns; dataset columns come before all of them. */
  position: number;
  isPartOfScore: boolean;
}

/** A cell's state. QUEUED and RUNNING only while a run is in progress; NOT_RUN: no run has filled it. */
export type CellStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'NOT_RUN';

export interface StatusCounts {
  COMPLETED: number;
  FAILED: number;
  QUEUED: number;
  RUNNING: number;
}

/** The answer of GET /reports/{id}/score, stored on the head when a run completes (or the score card changes). */
export interface ReportScore {
  overall_score: number | null;
  score_type: 'single_column' | 'multi_column' | 'custom' | 'none';
  has_custom_scoring: boolean;
  details: Record<string, unknown>;
}

/**
 * The latest run of a report (the head's `run` attribute). A run works on a snapshot taken when it
 * starts (the dataset's manifest and the columns), so nothing edited meanwhile changes its cells.
 * Counters are cells; `startedCells` counts the cells of batches claimed at least once.
 */
export interface ReportRunState {
  number: number;
  status: 'RUNNING' | 'COMPLETED';
  startedAt: string;
  finishedAt?: string;
  rowCount: number;
  batchSize: number;
  batchCount: number;
  cellCount: number;
  startedCells: number;
  completedCells: number;
  failedCells: number;
  score?: ReportScore | null;
  scoreError?: string | null;
}

/**
 * A run's score as the head stores it: JSON text. A score holds whatever JSON the score code returned
 * (its `matrix`) and averages of any numbers, which a DynamoDB map could not always keep (numbers
 * beyond 38 digits or 1e±125, or past Number.MAX_SAFE_INTEGER for the document client; nesting deeper
 * than 32 levels).
 */
export const scoreForStorage = (score: ReportScore | null): string | null =>
  score === null ? null : JSON.stringify(score);

/** The run of a head item as read: its score parsed back (scoreForStorage). */
export function runFromStorage<T extends ReportRunState>(run: T | undefined): T | undefined {
  if (!run || typeof run.score !== 'string') return run;
  return { ...run, score: JSON.parse(run.score) as ReportScore };
}

/** A report's head item (`W#<ws>#RPT#<id>` / `RPT`). */
export interface ReportRecord {
  id: number;
  workspaceId: number;
  name: string;
  comment: string | null;
  tags: string[];
  folderId: number | null;
  datasetGroupId: number;
  /** The dataset version the report reads (a published version's dataset id and number). */
  datasetId: number;
  datasetVersionNumber: number;
  /** True for a pipeline created by POST /reports; false for a copy made by a named run. */
  isBlueprint: boolean;
  parentReportId: number | null;
  scoreConfiguration: ScoreConfiguration | null;
  userId: number;
  userEmail?: string;
  createdAt: string;
  updatedAt: string;
  deleted: boolean;
  hasExternalIds?: boolean;
  run?: ReportRunState;
}

/**
 * A report's status and cell counts as GET /reports/{id} and the evaluations list answer them: RUNNING
 * while its latest run has cells queued or running, COMPLETED otherwise (also for a report never run).
 */
export function reportStatus(report: Pick<ReportRecord, 'run'>): {
  status: 'RUNNING' | 'COMPLETED';
  stats: { status_counts: StatusCounts };
} {
  const run = report.run;
  if (!run) return { status: 'COMPLETED', stats: { status_counts: zeroCounts() } };
  const done = run.completedCells + run.failedCells;
  const running = run.status === 'RUNNING' ? Math.max(0, run.startedCells - done) : 0;
  const queued = run.status === 'RUNNING' ? Math.max(0, run.cellCount - Math.max(run.startedCells, done)) : 0;
  return {
    status: run.status,
    stats: {
      status_counts: {
        COMPLETED: run.completedCells,
        FAILED: run.failedCells,
        QUEUED: queued,
        RUNNING: running,
      },
    },
  };
}

const zeroCounts = (): StatusCounts => ({ COMPLETED: 0, FAILED: 0, QUEUED: 0, RUNNING: 0 });

import type { Filter } from '../../lib/log-query.ts';
import { dashboardUrl, navigate } from '../../lib/url-state.ts';
import { type ReportColumn, type RowCell, valueText } from './api.ts';

/** Longest text a cell shows (the whole value is in its title). */
const CELL_CHARS = 200;
const clip = (text: string) => (text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS)}…` : text);

/** A cell of the rows grid: a dataset value, or an evaluation cell's status, value and error, as text. */
export function CellContent({
  cell,
  column,
  reportId,
  datasetValues,
}: {
  cell: RowCell | undefined;
  column: ReportColumn | undefined;
  reportId: number;
  /** The row's dataset values by column name (a PROMPT_TEMPLATE cell's log is found by them). */
  datasetValues: Record<string, unknown>;
}) {
  if (!cell) return <span class="muted">…</span>;
  const text = cell.value_omitted_bytes
    ? `(${cell.value_omitted_bytes.toLocaleString('en-US')} bytes, not shown)`
    : clip(valueText(cell.value));
  if (cell.type === 'dataset') return <span title={text}>{text}</span>;
  return (
    <span class="evaluations-cell" title={cell.error_message ?? text}>
      <span class={`evaluations-status evaluations-status-${cell.status.toLowerCase()}`}>{cell.status}</span>
      {cell.status === 'FAILED' ? (
        <span class="error">{clip(cell.error_message ?? '')}</span>
      ) : (
        <span>{text}</span>
      )}
      {column && cell.request_log_id !== undefined ? (
        <LogLink path={cellLog(reportId, column.name, cell.request_log_id)} column={column.name} />
      ) : column?.column_type === 'PROMPT_TEMPLATE' &&
        (cell.status === 'COMPLETED' || cell.status === 'FAILED') ? (
        <LogLink path={promptCellLogs(reportId, column.name, datasetValues)} column={column.name} />
      ) : null}
    </span>
  );
}

function LogLink({ path, column }: { path: string; column: string }) {
  return (
    <a
      class="evaluations-log-link"
      href={dashboardUrl(path)}
      aria-label={`Request log of ${column}`}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(path);
      }}
    >
      log
    </a>
  );
}

/** The run's logs of the cell's column in the last 30 days, with the cell's own log selected (`sel`). */
export function cellLog(reportId: number, column: string, requestLogId: number) {
  const filters: Filter[] = [
    { field: 'metadata', nested_key: 'report_id', operator: 'key_equals', value: String(reportId) },
    { field: 'metadata', nested_key: 'report_column_name', operator: 'key_equals', value: column },
  ];
  return `requests?range=30d&f=${encodeURIComponent(JSON.stringify(filters))}&sel=${requestLogId}`;
}

/** How many dataset values narrow a cell's log search (the first few short text ones are enough). */
const MATCH_VALUES = 3;
const MATCH_CHARS = 500;

/**
 * The Requests screen's view of the request log a PROMPT_TEMPLATE cell of a run made before the rows
 * endpoint answered `request_log_id` produced: the log is found by what the run wrote on it: its metadata (`report_id`,
 * `report_column_name`) and its input variables, which hold the row's dataset values by column name.
 * Earlier runs of the same report and row match too (newest first); the window is the last 30 days.
 */
export function promptCellLogs(reportId: number, column: string, datasetValues: Record<string, unknown>) {
  const filters: Filter[] = [
    { field: 'metadata', nested_key: 'report_id', operator: 'key_equals', value: String(reportId) },
    { field: 'metadata', nested_key: 'report_column_name', operator: 'key_equals', value: column },
  ];
  for (const [name, value] of Object.entries(datasetValues)) {
    if (filters.length >= 2 + MATCH_VALUES) break;
    if (typeof value !== 'string' || value.length > MATCH_CHARS || name.includes('.')) continue;
    filters.push({ field: 'input_variables', nested_key: name, operator: 'key_equals', value });
  }
  return `requests?range=30d&f=${encodeURIComponent(JSON.stringify(filters))}`;
}

import { useState } from 'preact/hooks';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { setQuery } from '../../lib/url-state.ts';
import { formatScore, overallScore, type ReportView, type RowCell, readReport, valueText } from './api.ts';
import { rowOf, useRowPages, WindowedTable, windowOf } from './grid.tsx';

/** `compare=3..5`: reports 3 and 5; anything else is no comparison (a hand-edited URL never breaks the page). */
export function parseCompare(value: string | null): { a: number; b: number } | null {
  const match = /^(\d{1,12})\.\.(\d{1,12})$/.exec(value ?? '');
  if (!match) return null;
  const a = Number(match[1]);
  const b = Number(match[2]);
  return a >= 1 && b >= 1 ? { a, b } : null;
}

const delta = (a: number | null, b: number | null): string => {
  if (a === null || b === null) return '–';
  const difference = b - a;
  return `${difference > 0 ? '+' : difference < 0 ? '−' : '±'}${formatScore(Math.abs(difference))}`;
};

/** Two reports side by side: their scores and scored columns with the deltas, then their rows, changed cells marked. */
export function CompareReports({ a, b }: { a: number; b: number }) {
  const views = useApi((signal) => Promise.all([readReport(a, signal), readReport(b, signal)]), [a, b]);
  if (views.error) return <ErrorMessage>{views.error}</ErrorMessage>;
  if (!views.data) return <Loading what="Loading the reports" />;
  const [left, right] = views.data;
  return (
    <section class="evaluations-detail" aria-labelledby="compare-title">
      <h2 id="compare-title">
        Compare “{left.report.name}” with “{right.report.name}”
      </h2>
      <p>
        <button type="button" onClick={() => setQuery({ compare: null, report: String(a) })}>
          Close the comparison
        </button>
      </p>
      {left.report.dataset_id !== right.report.dataset_id ? (
        <p class="notice">
          The reports read different dataset versions: rows are compared by their position.
        </p>
      ) : null}
      <ScoreDeltas left={left} right={right} />
      <CompareRows left={left} right={right} />
    </section>
  );
}

function ScoreDeltas({ left, right }: { left: ReportView; right: ReportView }) {
  const names = [
    ...new Set(
      [...left.report_columns, ...right.report_columns]
        .filter((column) => column.is_part_of_score)
        .map((column) => column.name),
    ),
  ];
  const scoreOf = (view: ReportView, name: string) =>
    view.report_columns.find((column) => column.name === name)?.score ?? null;
  const rows: [string, number | null, number | null][] = [
    ['Score', overallScore(left.report.score), overallScore(right.report.score)],
    ...names.map((name): [string, number | null, number | null] => [
      name,
      scoreOf(left, name),
      scoreOf(right, name),
    ]),
  ];
  return (
    <table class="evaluations-table evaluations-deltas">
      <caption>Scores</caption>
      <thead>
        <tr>
          <th scope="col">Score of</th>
          <th scope="col">{left.report.name}</th>
          <th scope="col">{right.report.name}</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, x, y]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{formatScore(x)}</td>
            <td>{formatScore(y)}</td>
            <td class={x !== null && y !== null && x !== y ? 'evaluations-changed' : undefined}>
              {delta(x, y)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a cell shows in a comparison: its value, or its error when it failed. */
const cellSummary = (cell: RowCell | undefined): string => {
  if (!cell) return '';
  if (cell.type === 'eval' && cell.status === 'FAILED') return `FAILED: ${cell.error_message ?? ''}`;
  if (cell.type === 'eval' && cell.status !== 'COMPLETED') return cell.status;
  return valueText(cell.value);
};

const CELL_CHARS = 120;
const clip = (text: string) => (text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS)}…` : text);

function CompareRows({ left, right }: { left: ReportView; right: ReportView }) {
  const [scrollTop, setScrollTop] = useState(0);
  const { first, last } = windowOf(scrollTop, Number.MAX_SAFE_INTEGER);
  const a = useRowPages(left.report.id, first, last, 0);
  const b = useRowPages(right.report.id, first, last, 0);
  const error = a.error ?? b.error;
  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  const pageA = a.pages.get(1);
  const pageB = b.pages.get(1);
  if (!pageA || !pageB) return <Loading what="Loading the rows" />;
  const columns = [...new Set([...pageA.columns, ...pageB.columns])];
  const total = Math.max(pageA.total, pageB.total);
  return (
    <WindowedTable
      label={`Rows compared: ${total.toLocaleString('en-US')}`}
      total={total}
      scrollTop={scrollTop}
      onScroll={setScrollTop}
      header={columns.map((column) => (
        <th key={column} scope="col">
          {column}
        </th>
      ))}
      renderRow={(index) => {
        const rowA = rowOf(a.pages, index);
        const rowB = rowOf(b.pages, index);
        return columns.map((column) => {
          if (!rowA || !rowB) return <td key={column}>…</td>;
          const x = cellSummary(rowA[pageA.columns.indexOf(column)]);
          const y = cellSummary(rowB[pageB.columns.indexOf(column)]);
          if (x === y)
            return (
              <td key={column} title={x}>
                {clip(x)}
              </td>
            );
          return (
            <td key={column} class="evaluations-changed" title={`${x} → ${y}`}>
              <del>{clip(x)}</del> → <ins>{clip(y)}</ins>
            </td>
          );
        });
      }}
    />
  );
}

import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery } from '../../lib/url-state.ts';
import {
  formatScore,
  overallScore,
  type ReportColumn,
  type ReportView,
  readReport,
  renameReport,
  rowProgress,
  runReport,
} from './api.ts';
import { CellContent } from './cells.tsx';
import { rowOf, useRowPages, WindowedTable, windowOf } from './grid.tsx';
import { usePoll } from './poll.ts';

/**
 * One report (`report=<id>` in the URL): its score card, its latest run's progress (read again while it
 * runs), run / re-run, rename and tags, and its rows.
 */
export function ReportDetail({
  id,
  groupNames,
  onChanged,
}: {
  id: number;
  /** Dataset names by group id, to name the report's dataset version. */
  groupNames: ReadonlyMap<number, string>;
  onChanged: () => void;
}) {
  const [view, setView] = useState<ReportView>();
  const [error, setError] = useState<string>();
  const [loads, setLoads] = useState(0);
  const [rowsVersion, setRowsVersion] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    readReport(id, controller.signal).then(
      (answer) => {
        setView(answer);
        setError(undefined);
      },
      (failure) => controller.signal.aborted || setError(errorMessage(failure)),
    );
    return () => controller.abort();
  }, [id, loads]);
  const running = view?.status === 'RUNNING';
  usePoll(
    running,
    async (signal) => {
      const answer = await readReport(id, signal);
      setView(answer);
      setRowsVersion((n) => n + 1);
      if (answer.status === 'RUNNING') return true;
      onChanged();
      return false;
    },
    id,
  );
  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  if (!view || view.report.id !== id) return <Loading what="Loading the report" />;
  const reload = () => {
    setLoads((n) => n + 1);
    setRowsVersion((n) => n + 1);
    onChanged();
  };
  return (
    <section class="evaluations-detail" aria-labelledby="report-title">
      <h2 id="report-title">{view.report.name}</h2>
      <ReportFacts view={view} groupNames={groupNames} />
      <RunProgress view={view} />
      <EditOnly entity="reports">
        <RunControls view={view} onStarted={reload} />
        <RenameForm
          key={`${id}:${view.report.name}:${view.report.tags.join()}`}
          view={view}
          onSaved={reload}
        />
      </EditOnly>
      <ScoreCard view={view} />
      <ReportRows key={id} view={view} version={rowsVersion} />
    </section>
  );
}

/** A report's dataset version as the user named it: `eval questions v1` (`group 7 v1` when unknown). */
export function datasetVersionLabel(
  groupNames: ReadonlyMap<number, string>,
  report: { dataset_group_id: number; dataset_version_number: number },
): string {
  const name = groupNames.get(report.dataset_group_id) ?? `group ${report.dataset_group_id}`;
  return `${name} v${report.dataset_version_number}`;
}

function ReportFacts({ view, groupNames }: { view: ReportView; groupNames: ReadonlyMap<number, string> }) {
  const formatTime = useFormatTime();
  const { report } = view;
  return (
    <dl class="evaluations-facts">
      <dt>Status</dt>
      <dd>{view.status === 'RUNNING' ? 'Running' : 'Completed'}</dd>
      <dt>Dataset</dt>
      <dd>{datasetVersionLabel(groupNames, report)}</dd>
      <dt>Tags</dt>
      <dd>{report.tags.length ? report.tags.join(', ') : <span class="muted">none</span>}</dd>
      <dt>Updated</dt>
      <dd>{formatTime(report.updated_at)}</dd>
    </dl>
  );
}

/** Rows done of the latest run, as a progress bar while it runs. */
export function RunProgress({ view }: { view: ReportView }) {
  const { done, total } = rowProgress(view.stats.status_counts, view.report_columns.length);
  const failed = view.stats.status_counts.FAILED;
  if (view.status !== 'RUNNING')
    return total ? (
      <p class="evaluations-progress">
        Last run: {done} of {total} rows done{failed ? `, ${failed} cells failed` : ''}.
      </p>
    ) : (
      <p class="muted">Not run yet.</p>
    );
  return (
    <p class="evaluations-progress" aria-live="polite">
      <label>
        Running: {done} / {total} rows
        <progress max={total || 1} value={done} />
      </label>
    </p>
  );
}

function RunControls({ view, onStarted }: { view: ReportView; onStarted: () => void }) {
  const [copyName, setCopyName] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = (name?: string) => {
    setBusy(true);
    setFailure(null);
    runReport(view.report.id, name).then(
      (runningId) => {
        setBusy(false);
        if (runningId !== view.report.id) setQuery({ report: String(runningId), compare: null });
        else onStarted();
      },
      (error) => {
        setBusy(false);
        setFailure(errorMessage(error));
      },
    );
  };
  const neverRun = rowProgress(view.stats.status_counts, view.report_columns.length).total === 0;
  return (
    <div class="evaluations-run">
      <button
        type="button"
        class="primary"
        disabled={busy || view.status === 'RUNNING'}
        onClick={() => run()}
      >
        {neverRun ? 'Run' : 'Run again'}
      </button>
      <form
        class="evaluations-inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (copyName.trim()) run(copyName.trim());
        }}
      >
        <label for="run-copy-name">Run a copy named</label>
        <input
          id="run-copy-name"
          maxLength={255}
          value={copyName}
          onInput={(event) => setCopyName(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy || view.status === 'RUNNING' || !copyName.trim()}>
          Run copy
        </button>
      </form>
      {failure && <ErrorMessage>{failure}</ErrorMessage>}
    </div>
  );
}

const parseTags = (text: string) =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

function RenameForm({ view, onSaved }: { view: ReportView; onSaved: () => void }) {
  const [name, setName] = useState(view.report.name);
  const [tags, setTags] = useState(view.report.tags.join(', '));
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <form
      class="evaluations-inline-form evaluations-rename"
      aria-label="Name and tags"
      onSubmit={(event) => {
        event.preventDefault();
        renameReport(view.report.id, { name: name.trim(), tags: parseTags(tags) }).then(
          () => {
            setFailure(null);
            onSaved();
          },
          (error) => setFailure(errorMessage(error)),
        );
      }}
    >
      <label for="report-name">Name</label>
      <input
        id="report-name"
        required
        maxLength={255}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <label for="report-tags">Tags (comma-separated)</label>
      <input id="report-tags" value={tags} onInput={(event) => setTags(event.currentTarget.value)} />
      <button type="submit">Save name and tags</button>
      {failure && <ErrorMessage>{failure}</ErrorMessage>}
    </form>
  );
}

/** The score and what makes it: the scored columns' own scores, or the custom score's error. */
export function ScoreCard({ view }: { view: ReportView }) {
  const score = view.report.score;
  const scored = view.report_columns.filter((column) => column.is_part_of_score);
  return (
    <section class="evaluations-score" aria-labelledby="score-title">
      <h3 id="score-title">
        Score: <span class="evaluations-score-value">{formatScore(overallScore(score))}</span>
      </h3>
      {score?.score_type === 'custom' ? <p class="muted">Computed by the report's score code.</p> : null}
      {view.report.score_calculation_error ? (
        <p class="error">{view.report.score_calculation_error}</p>
      ) : null}
      {scored.length > 0 && (
        <table class="evaluations-table">
          <thead>
            <tr>
              <th scope="col">Scored column</th>
              <th scope="col">Type</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            {scored.map((column) => (
              <tr key={column.id}>
                <th scope="row">{column.name}</th>
                <td>{column.column_type}</td>
                <td>{formatScore(column.score)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The latest run's rows, windowed: dataset values, then each evaluation cell. */
function ReportRows({ view, version }: { view: ReportView; version: number }) {
  const [scrollTop, setScrollTop] = useState(0);
  // The pages in view (the grid itself stops at the total, which page 1 tells).
  const { first, last } = windowOf(scrollTop, Number.MAX_SAFE_INTEGER);
  const { pages, error } = useRowPages(view.report.id, first, last, version);
  const firstPage = pages.get(1);
  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  if (!firstPage) return <Loading what="Loading the rows" />;
  if (firstPage.total === 0) return <p class="muted">The dataset version has no rows.</p>;
  const columns = firstPage.columns;
  const byName = new Map<string, ReportColumn>(view.report_columns.map((column) => [column.name, column]));
  return (
    <WindowedTable
      label={`Rows: ${firstPage.total.toLocaleString('en-US')}`}
      total={firstPage.total}
      scrollTop={scrollTop}
      onScroll={setScrollTop}
      header={columns.map((column) => (
        <th key={column} scope="col">
          {column}
          {byName.get(column) ? <span class="muted"> {byName.get(column)?.column_type}</span> : null}
        </th>
      ))}
      renderRow={(index) => {
        const cells = rowOf(pages, index);
        const datasetValues: Record<string, unknown> = {};
        cells?.forEach((cell, at) => {
          if (cell.type === 'dataset') datasetValues[columns[at] ?? ''] = cell.value;
        });
        return columns.map((column, at) => (
          <td key={column}>
            <CellContent
              cell={cells?.[at]}
              column={byName.get(column)}
              reportId={view.report.id}
              datasetValues={datasetValues}
            />
          </td>
        ));
      }}
    />
  );
}

import { useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useListKeys } from '../../lib/keyboard.ts';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { EVALUATIONS, formatScore, overallScore, type Report } from './api.ts';
import { CompareReports, parseCompare } from './compare.tsx';
import { CreateReport, type DatasetVersion } from './create.tsx';
import { datasetVersionLabel, ReportDetail } from './report.tsx';

const PER_PAGE = 25;

interface ReportList {
  evaluations: Report[];
  page: number;
  pages: number;
  total: number;
}

/**
 * Evaluations: the reports (search by name, paged, the selected one in the URL as `report`), a report's
 * score card, run progress and rows, two reports compared row by row (`compare=<a>..<b>`), and a new
 * report made from a dataset version (`new=1`).
 */
export default function EvaluationsScreen() {
  const params = useQuery();
  const search = params.get('q') ?? '';
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const selected = Number(params.get('report')) || 0;
  const compare = parseCompare(params.get('compare'));
  const creating = params.get('new') === '1';
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  const list = useApi(
    (signal) =>
      api<ReportList>('GET', EVALUATIONS, {
        query: { name: search.trim(), page, per_page: PER_PAGE, sort_by: 'updated_at' },
        signal,
      }),
    [search, page, version],
  );
  const datasets = useApi(
    (signal) =>
      api<{ datasets: DatasetVersion[] }>('GET', '/api/public/v2/datasets', {
        query: { per_page: 100 },
        signal,
      }).then((answer) => answer.datasets),
    [],
  );
  const reports = list.data?.evaluations ?? [];
  const groupNames = new Map((datasets.data ?? []).map((d) => [d.dataset_group.id, d.dataset_group.name]));
  const searchRef = useRef<HTMLInputElement>(null);
  const selectedIndex = reports.findIndex((report) => report.id === selected);
  useListKeys({
    count: reports.length,
    selected: selectedIndex,
    onSelect: (index) => {
      const report = reports[index];
      if (report) setQuery({ report: String(report.id), compare: null, new: null });
    },
    onClose: () => setQuery({ report: null, compare: null }),
    searchRef,
  });

  return (
    <section aria-labelledby="screen-title" class="evaluations">
      <h1 id="screen-title">Evaluations</h1>
      <div class="evaluations-toolbar">
        <label for="evaluations-search">Search by name</label>
        <input
          id="evaluations-search"
          ref={searchRef}
          type="search"
          value={search}
          onInput={(event) => setQuery({ q: event.currentTarget.value, page: null }, 'replace')}
        />
        <EditOnly entity="reports">
          <button type="button" onClick={() => setQuery({ new: '1', report: null, compare: null })}>
            New report
          </button>
        </EditOnly>
      </div>
      {list.error ? <ErrorMessage>{list.error}</ErrorMessage> : null}
      {list.loading && !list.data ? <Loading what="Loading the reports" /> : null}
      {list.data ? (
        <ReportTable reports={reports} selected={selected} groupNames={groupNames} list={list.data} />
      ) : null}
      {compare ? (
        <CompareReports key={`${compare.a}..${compare.b}`} a={compare.a} b={compare.b} />
      ) : creating ? (
        <CreateReport datasets={datasets.data ?? []} onCreated={reload} />
      ) : selected ? (
        <>
          <CompareWith current={selected} reports={reports} />
          <ReportDetail key={selected} id={selected} groupNames={groupNames} onChanged={reload} />
        </>
      ) : null}
    </section>
  );
}

function ReportTable({
  reports,
  selected,
  groupNames,
  list,
}: {
  reports: Report[];
  selected: number;
  groupNames: ReadonlyMap<number, string>;
  list: ReportList;
}) {
  const formatTime = useFormatTime();
  if (reports.length === 0) return <p class="muted">No reports.</p>;
  return (
    <>
      <table class="evaluations-table evaluations-list">
        <caption class="visually-hidden">Reports</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Score</th>
            <th scope="col">Dataset version</th>
            <th scope="col">Tags</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {reports.map((report) => (
            <tr key={report.id} aria-selected={report.id === selected}>
              <th scope="row">
                <button
                  type="button"
                  class="link"
                  aria-current={report.id === selected ? 'true' : undefined}
                  onClick={() => setQuery({ report: String(report.id), compare: null, new: null })}
                >
                  {report.name}
                </button>
              </th>
              <td>{statusText(report)}</td>
              <td>{formatScore(overallScore(report.score))}</td>
              <td>{datasetVersionLabel(groupNames, report)}</td>
              <td>{report.tags.join(', ')}</td>
              <td>{formatTime(report.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.pages > 1 && (
        <nav class="evaluations-pager" aria-label="Pages of reports">
          <button
            type="button"
            disabled={list.page <= 1}
            onClick={() => setQuery({ page: String(list.page - 1) })}
          >
            Previous
          </button>
          <span>
            Page {list.page} of {list.pages} ({list.total} reports)
          </span>
          <button
            type="button"
            disabled={list.page >= list.pages}
            onClick={() => setQuery({ page: String(list.page + 1) })}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}

/** Running with rows done / total, or Completed / Not run. */
function statusText(report: Report): string {
  const counts = report.stats.status_counts;
  const cells = counts.COMPLETED + counts.FAILED + counts.QUEUED + counts.RUNNING;
  if (report.status === 'RUNNING') {
    const done = counts.COMPLETED + counts.FAILED;
    return `Running (${Math.round((done / Math.max(1, cells)) * 100)} %)`;
  }
  return cells === 0 ? 'Not run' : 'Completed';
}

/** Picks another report of the list to compare the selected one with. */
function CompareWith({ current, reports }: { current: number; reports: Report[] }) {
  const others = reports.filter((report) => report.id !== current);
  const [other, setOther] = useState('');
  if (others.length === 0) return null;
  return (
    <form
      class="evaluations-inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        const chosen = other || String(others[0]?.id ?? '');
        if (chosen) setQuery({ compare: `${current}..${chosen}` });
      }}
    >
      <label for="compare-with">Compare with</label>
      <select id="compare-with" value={other} onChange={(event) => setOther(event.currentTarget.value)}>
        {others.map((report) => (
          <option key={report.id} value={String(report.id)}>
            {report.name}
          </option>
        ))}
      </select>
      <button type="submit">Compare</button>
    </form>
  );
}

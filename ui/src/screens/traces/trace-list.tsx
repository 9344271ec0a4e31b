import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage } from '../../components/status.tsx';
import { useListKeys } from '../../lib/keyboard.ts';
import { RANGE_LABELS, RANGES, type RangePreset } from '../../lib/log-query.ts';
import { formatDuration, useFormatTime } from '../../lib/time.ts';
import { dashboardUrl, setQuery, useQueryParam } from '../../lib/url-state.ts';

interface ListedTrace {
  trace_id: string;
  name: string | null;
  start_time: string;
  end_time: string;
  duration_ms: number;
  span_count: number;
  has_error: boolean;
  error_count: number;
  request_log_count: number;
  cost: number;
}

interface TraceList {
  traces: ListedTrace[];
  next_cursor: string | null;
}

const PER_PAGE = 50;

/**
 * The workspace's traces, newest first, a page of 50 at a time. The URL keeps the cursors of the pages
 * walked so far (`pages`, space-separated: the last is the page shown), so Previous, reload and back
 * show the same page. A row opens the trace's waterfall (`?trace=`).
 */
export function TraceListView() {
  const [pagesParam] = useQueryParam('pages');
  const cursors = pagesParam ? pagesParam.split(' ') : [];
  const cursor = cursors.at(-1);
  const [refreshed, setRefreshed] = useState(0);
  const [rangeParam] = useQueryParam('range');
  const range = rangeParam && rangeParam in RANGES ? (rangeParam as RangePreset) : undefined;
  // A range ends now: its start is taken when the range is chosen or the list refreshed, so the pages
  // walked are pages of one window.
  const from = useMemo(
    () => (range ? new Date(Date.now() - RANGES[range]).toISOString() : undefined),
    [range, refreshed],
  );
  const result = useApi(
    (signal) =>
      api<TraceList>('GET', '/api/public/v2/traces', { query: { per_page: PER_PAGE, cursor, from }, signal }),
    [cursor, from],
  );
  const rows = result.data?.traces ?? [];
  const [active, setActive] = useState(0);
  useEffect(() => setActive(0), [cursor]);
  const activeIndex = Math.min(active, Math.max(0, rows.length - 1));
  const open = (trace: ListedTrace) => setQuery({ trace: trace.trace_id, span: null });
  useListKeys({
    count: rows.length,
    selected: activeIndex,
    onSelect: setActive,
    onOpen: (index) => {
      const row = rows[index];
      if (row) open(row);
    },
  });
  useEffect(() => {
    document.querySelector('.traces-row-active')?.scrollIntoView({ block: 'nearest' });
  }, [activeIndex]);
  const format = useFormatTime();
  const page = cursors.length + 1;

  if (!result.loading && !result.error && rows.length === 0 && page === 1 && !range)
    return (
      <p class="muted traces-empty">
        No traces yet. Spans arrive through <code>POST /v1/traces</code> (any OpenTelemetry exporter) and{' '}
        <code>POST /spans-bulk</code> (the PromptLayer SDKs with tracing on).
      </p>
    );
  return (
    <>
      <div class="traces-toolbar">
        <label>
          <span class="visually-hidden">Time range</span>
          <select
            value={range ?? 'all'}
            onChange={(event) => {
              const chosen = event.currentTarget.value;
              setQuery({ range: chosen in RANGES ? chosen : null, pages: null });
            }}
          >
            <option value="all">Any time</option>
            {(Object.keys(RANGES) as RangePreset[]).map((preset) => (
              <option key={preset} value={preset}>
                {RANGE_LABELS[preset]}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={() => {
            setQuery({ pages: null });
            setRefreshed((n) => n + 1);
          }}
        >
          Refresh
        </button>
      </div>
      {result.error ? <ErrorMessage>{result.error}</ErrorMessage> : null}
      <table class="traces-table" aria-busy={result.loading}>
        <caption class="visually-hidden">
          Traces, newest first, page {page}
          {result.loading ? ' (loading)' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Name</th>
            <th scope="col" class="numeric">
              Duration
            </th>
            <th scope="col" class="numeric">
              Spans
            </th>
            <th scope="col" class="numeric">
              Errors
            </th>
            <th scope="col" class="numeric">
              Request logs
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr
              key={row.trace_id}
              class={[
                index === activeIndex ? 'traces-row-active' : '',
                row.has_error ? 'traces-row-failed' : '',
              ]
                .join(' ')
                .trim()}
              onClick={(event) => {
                if ((event.target as HTMLElement).closest('a, button')) return;
                setActive(index);
                open(row);
              }}
            >
              <td>{format(row.start_time, 'ms')}</td>
              <td>
                <a
                  href={dashboardUrl(`traces?trace=${encodeURIComponent(row.trace_id)}`)}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                    event.preventDefault();
                    setActive(index);
                    open(row);
                  }}
                >
                  {row.name ?? (
                    <>
                      <code>{row.trace_id}</code>
                      <span class="visually-hidden"> (root span not received)</span>
                    </>
                  )}
                </a>
              </td>
              <td class="numeric">{formatDuration(row.duration_ms)}</td>
              <td class="numeric">{row.span_count.toLocaleString('en-US')}</td>
              <td class="numeric">
                {row.has_error ? (
                  <span class="traces-error">
                    <span aria-hidden="true">● </span>
                    {row.error_count.toLocaleString('en-US')}
                    <span class="visually-hidden"> failed</span>
                  </span>
                ) : (
                  '0'
                )}
              </td>
              <td class="numeric">{row.request_log_count.toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!result.loading && !result.error && rows.length === 0 ? (
        <p class="muted">No trace started in this time range.</p>
      ) : null}
      <nav class="traces-pager" aria-label="Pages">
        <button
          type="button"
          disabled={page <= 1}
          onClick={() => setQuery({ pages: cursors.slice(0, -1).join(' ') || null })}
        >
          Newer
        </button>
        <span>Page {page}</span>
        <button
          type="button"
          disabled={!result.data?.next_cursor}
          onClick={() => setQuery({ pages: [...cursors, result.data!.next_cursor!].join(' ') })}
        >
          Older
        </button>
      </nav>
      <p class="muted">
        Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens.
      </p>
    </>
  );
}

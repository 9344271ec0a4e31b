import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ErrorMessage } from '../../components/status.tsx';
import { useListKeys } from '../../lib/keyboard.ts';
import {
  addFilter,
  type Filter,
  type LogQuery,
  RANGE_LABELS,
  RANGES,
  type RangePreset,
  readLogQuery,
  toApiQuery,
  writeLogQuery,
} from '../../lib/log-query.ts';
import { useFormatTime } from '../../lib/time.ts';
import { dashboardUrl, navigate, setQuery, useQuery } from '../../lib/url-state.ts';
import { COLUMNS, readHiddenColumns, writeHiddenColumns } from './columns.tsx';
import { RequestDetail } from './detail/index.tsx';
import { SelectCell, SelectionBar, useRowSelection } from './selection.tsx';
import type { SearchAnswer } from './types.ts';

export const PAGE_SIZE = 25;
/** The most logs one search examines (SEARCH_MAX_EXAMINED, docs/request-logs.md "The search budget"). */
const SEARCH_BUDGET = 50_000;
const SEARCH_DELAY_MS = 300;

/** Paging parameters: cleared whenever the query changes (a cursor belongs to one search). */
const FIRST_PAGE = { cursor: null, page: null, asof: null } as const;

/** Sets the query's parameters (a new search: back to the first page). */
export function applyLogQuery(query: LogQuery, mode: 'push' | 'replace' = 'push'): void {
  setQuery({ ...writeLogQuery(query), ...FIRST_PAGE }, mode);
}

/**
 * Requests: the log table (25 rows a page, cursor paging, newest first by default) and the detail pane
 * of the URL's `sel`. URL: the log query of log-query.ts (range/from/to/q/f), `sort`/`order`, `cursor`,
 * `page` (its number, for display and "previous") and `asof` (the end of a preset range while paging,
 * so every page belongs to the same search), `sel`.
 */
export default function RequestsScreen() {
  const params = useQuery();
  const query = readLogQuery(params);
  const sortBy = params.get('sort') ?? 'request_start_time';
  const sortOrder = params.get('order') === 'asc' ? 'asc' : 'desc';
  const cursor = params.get('cursor');
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const asof = params.get('asof');
  const selected = params.get('sel');
  const [refreshed, setRefreshed] = useState(0);

  // A preset range ends "now": pinned per search so the cursor's search stays the same search.
  const viewKey = JSON.stringify([query, sortBy, sortOrder]);
  const now = useMemo(
    () => (asof && !Number.isNaN(Date.parse(asof)) ? Date.parse(asof) : Date.now()),
    [viewKey, asof, refreshed],
  );
  const body = JSON.stringify({
    ...toApiQuery(query, now),
    sort_by: sortBy,
    sort_order: sortOrder,
    per_page: PAGE_SIZE,
    include_total: false,
    include_prompt_name: true,
    ...(cursor ? { cursor } : page > 1 ? { page } : {}),
  });
  const result = useApi(
    (signal) =>
      api<SearchAnswer>('POST', '/api/public/v2/requests/search', { body: JSON.parse(body), signal }).catch(
        (error) => {
          // A cursor of another search (a hand-edited URL, a changed filter): start over at page 1.
          if (error instanceof ApiError && error.code === 'invalid_cursor') setQuery(FIRST_PAGE, 'replace');
          throw error;
        },
      ),
    [body],
  );
  const rows = result.data?.items ?? [];

  const onFilter = (filter: Filter) => applyLogQuery(addFilter(query, filter));
  const [active, setActive] = useState(0);
  useEffect(() => {
    const at = rows.findIndex((row) => String(row.id) === selected);
    if (at >= 0) setActive(at);
  }, [selected, result.data]);
  const activeIndex = Math.min(active, Math.max(0, rows.length - 1));
  const searchInput = useRef<HTMLInputElement>(null);
  const open = (id: number) => setQuery({ sel: String(id) });
  useListKeys({
    count: rows.length,
    selected: activeIndex,
    onSelect: setActive,
    onOpen: (index) => {
      const row = rows[index];
      if (row) open(row.id);
    },
    onClose: () => {
      if (selected) setQuery({ sel: null });
    },
    searchRef: searchInput,
  });
  useEffect(() => {
    document.querySelector('.requests-row-active')?.scrollIntoView({ block: 'nearest' });
  }, [activeIndex]);

  const rowIds = rows.map((row) => row.id);
  const selection = useRowSelection(rowIds, activeIndex);
  const [hidden, setHidden] = useState(readHiddenColumns);
  const columns = COLUMNS.filter((column) => !hidden.has(column.id));
  const formatTime = useFormatTime();

  return (
    <section aria-labelledby="screen-title" class={selected ? 'requests requests-with-detail' : 'requests'}>
      <div class="requests-main">
        <h1 id="screen-title">Requests</h1>
        <div class="requests-toolbar">
          <SearchBox
            value={query.q}
            inputRef={searchInput}
            onSearch={(q) => applyLogQuery({ ...query, q }, 'replace')}
          />
          <RangePicker query={query} />
          <button
            type="button"
            onClick={() => {
              setQuery(FIRST_PAGE);
              setRefreshed((n) => n + 1);
            }}
          >
            Refresh
          </button>
          <button
            type="button"
            onClick={() =>
              navigate(
                `datasets?${new URLSearchParams({ ...definedOnly(writeLogQuery(query)), from_filter: '1' })}`,
              )
            }
          >
            New dataset version from this filter
          </button>
          <ColumnChooser
            hidden={hidden}
            onChange={(next) => {
              writeHiddenColumns(next);
              setHidden(next);
            }}
          />
        </div>
        <FilterBar />
        {result.data?.incomplete_results && (
          <IncompleteNotice
            query={query}
            oldestFirst={sortBy === 'request_start_time' && sortOrder === 'asc'}
          />
        )}
        {result.error && <ErrorMessage>{result.error}</ErrorMessage>}
        <SelectionBar selection={selection} ids={rowIds} />
        <table class="requests-table" aria-busy={result.loading}>
          <caption class="visually-hidden">
            Request logs, page {page}
            {result.loading ? ' (loading)' : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Select</span>
              </th>
              {columns.map((column) => (
                <th
                  key={column.id}
                  scope="col"
                  class={column.numeric ? 'numeric' : undefined}
                  aria-sort={
                    column.sortBy === sortBy ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined
                  }
                >
                  {column.sortBy ? (
                    <button
                      type="button"
                      class="requests-sort"
                      title={`Sort by ${column.label.toLowerCase()}`}
                      onClick={() =>
                        setQuery({
                          ...FIRST_PAGE,
                          sort: column.sortBy === 'request_start_time' ? null : (column.sortBy ?? null),
                          order: column.sortBy === sortBy && sortOrder === 'desc' ? 'asc' : null,
                        })
                      }
                    >
                      {column.label}
                      <span aria-hidden="true">
                        {column.sortBy === sortBy ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}
                      </span>
                    </button>
                  ) : (
                    column.label
                  )}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr
                key={row.id}
                class={[
                  index === activeIndex ? 'requests-row-active' : '',
                  String(row.id) === selected ? 'requests-row-open' : '',
                ].join(' ')}
                aria-current={String(row.id) === selected ? 'true' : undefined}
                onClick={(event) => {
                  if ((event.target as HTMLElement).closest('button, a, input')) return;
                  setActive(index);
                  open(row.id);
                }}
              >
                <SelectCell id={row.id} index={index} selection={selection} />
                {columns.map((column) => (
                  <td key={column.id} class={column.numeric ? 'numeric' : undefined}>
                    {column.cell(row, { formatTime, onFilter })}
                  </td>
                ))}
                <td>
                  <a
                    href={dashboardUrl(`requests?${withParam(params, 'sel', String(row.id))}`)}
                    onClick={(event) => {
                      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                      event.preventDefault();
                      setActive(index);
                      open(row.id);
                    }}
                  >
                    Open<span class="visually-hidden"> request {row.id}</span>
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!result.loading && !result.error && rows.length === 0 && (
          <p class="muted">No request matches this search in this time range.</p>
        )}
        <nav class="requests-pager" aria-label="Pages">
          <button
            type="button"
            disabled={page <= 1}
            onClick={() =>
              setQuery(page <= 2 ? { cursor: null, page: null } : { cursor: null, page: String(page - 1) })
            }
          >
            Previous
          </button>
          <span>Page {page}</span>
          <button
            type="button"
            disabled={!result.data?.next_cursor}
            onClick={() =>
              setQuery({
                cursor: result.data?.next_cursor ?? null,
                page: String(page + 1),
                asof: query.from ? null : new Date(now).toISOString(),
              })
            }
          >
            Next
          </button>
        </nav>
        <p class="muted requests-keys">
          Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens, <kbd>Esc</kbd> closes, <kbd>/</kbd>{' '}
          searches, <kbd>x</kbd> or <kbd>Space</kbd> selects (shift-click selects a range).
        </p>
      </div>
      {selected && (
        <RequestDetail id={selected} onFilter={onFilter} onClose={() => setQuery({ sel: null })} />
      )}
    </section>
  );
}

function withParam(params: URLSearchParams, name: string, value: string): string {
  const next = new URLSearchParams(params);
  next.set(name, value);
  return next.toString();
}

/** Free text (a substring of the input or output), applied after a pause in typing; the URL is replaced, not pushed. */
function SearchBox({
  value,
  inputRef,
  onSearch,
}: {
  value: string;
  inputRef: { current: HTMLInputElement | null };
  onSearch(q: string): void;
}) {
  const [text, setText] = useState(value);
  const typed = useRef(value);
  // Back/forward or a cleared query changes the URL's q: show it.
  useEffect(() => {
    if (value !== typed.current) {
      typed.current = value;
      setText(value);
    }
  }, [value]);
  useEffect(() => {
    if (text === typed.current) return;
    const timer = setTimeout(() => {
      typed.current = text;
      onSearch(text);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <label class="requests-search">
      <span class="visually-hidden">Search input and output text</span>
      <input
        ref={inputRef}
        type="search"
        placeholder="Search input and output text (/)"
        value={text}
        maxLength={1024}
        onInput={(event) => setText(event.currentTarget.value)}
      />
    </label>
  );
}

function RangePicker({ query }: { query: LogQuery }) {
  const formatTime = useFormatTime();
  const custom = Boolean(query.from && query.to);
  return (
    <label>
      <span class="visually-hidden">Time range</span>
      <select
        value={custom ? 'custom' : query.range}
        onChange={(event) => {
          const range = event.currentTarget.value;
          if (range in RANGES)
            applyLogQuery({ ...query, range: range as RangePreset, from: undefined, to: undefined });
        }}
      >
        {custom && (
          <option value="custom">
            {formatTime(query.from)} – {formatTime(query.to)}
          </option>
        )}
        {(Object.keys(RANGES) as RangePreset[]).map((range) => (
          <option key={range} value={range}>
            {RANGE_LABELS[range]}
          </option>
        ))}
      </select>
    </label>
  );
}

function ColumnChooser({ hidden, onChange }: { hidden: Set<string>; onChange(hidden: Set<string>): void }) {
  return (
    <details class="requests-columns">
      <summary>Columns</summary>
      <fieldset>
        <legend>Shown columns</legend>
        {COLUMNS.map((column) => (
          <label key={column.id} class="checkbox">
            <input
              type="checkbox"
              checked={!hidden.has(column.id)}
              onChange={(event) => {
                const next = new Set(hidden);
                if (event.currentTarget.checked) next.delete(column.id);
                else next.add(column.id);
                onChange(next);
              }}
            />
            {column.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/**
 * The search examined its budget of logs without reaching the end: say so, and offer what narrows it
 * (a shorter range; an ERROR/WARNING status or a prompt are read from their own index).
 */
function IncompleteNotice({ query, oldestFirst }: { query: LogQuery; oldestFirst: boolean }) {
  const shorter = (Object.keys(RANGES) as RangePreset[]).filter(
    (range) =>
      RANGES[range] <
      (query.from && query.to ? Date.parse(query.to) - Date.parse(query.from) : RANGES[query.range]),
  );
  const narrower = shorter.at(-1);
  return (
    <p class="notice requests-incomplete" role="status">
      Only the {oldestFirst ? 'oldest' : 'newest'} {SEARCH_BUDGET.toLocaleString('en-US')} logs of this range
      were examined: other matches may be missing. A shorter time range, a status of ERROR or WARNING, or a
      prompt narrows what is read.{' '}
      {narrower && (
        <button
          type="button"
          onClick={() => applyLogQuery({ ...query, range: narrower, from: undefined, to: undefined })}
        >
          Show the {RANGE_LABELS[narrower].toLowerCase()}
        </button>
      )}
    </p>
  );
}

const definedOnly = (values: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

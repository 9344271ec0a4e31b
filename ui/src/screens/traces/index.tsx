import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { formatDuration, useFormatTime } from '../../lib/time.ts';
import { dashboardUrl, navigate, setQuery, useQueryParam } from '../../lib/url-state.ts';
import { TraceListView } from './trace-list.tsx';
import { axisTicks, type SpanNode, type WaterfallRow, waterfallRows } from './waterfall-rows.ts';

interface Trace {
  trace_id: string;
  start_time: string;
  end_time: string;
  duration_ms: number;
  span_count: number;
  truncated: boolean;
  detail_truncated: boolean;
  spans: SpanNode[];
}

/** Rows are one height so the list can be windowed: only the rows in view (and a margin) are in the DOM. */
const ROW_HEIGHT = 28;
const VIEW_ROWS = 20;
const OVERSCAN = 10;

/**
 * Traces: the workspace's traces newest first (trace-list.tsx); a row, or a trace id typed in, opens that
 * trace's span tree as a waterfall on a shared time axis. The URL holds the trace (`trace`) and the
 * selected span (`span`), whose details show beside it; LLM spans link to their request logs.
 */
export default function TracesScreen() {
  const [traceId] = useQueryParam('trace');
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Traces</h1>
      <OpenTrace current={traceId} />
      {traceId ? (
        <>
          <button type="button" class="traces-back" onClick={() => setQuery({ trace: null, span: null })}>
            ← All traces
          </button>
          <TraceView traceId={traceId} />
        </>
      ) : (
        <TraceListView />
      )}
    </section>
  );
}

function OpenTrace({ current }: { current: string }) {
  const [draft, setDraft] = useState(current);
  useEffect(() => setDraft(current), [current]);
  return (
    <form
      class="open-trace"
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({ trace: draft.trim(), span: null });
      }}
    >
      <label for="trace-id">Trace id</label>
      <input
        id="trace-id"
        value={draft}
        spellcheck={false}
        autocomplete="off"
        placeholder="32 hex characters, from a request's detail"
        onInput={(event) => setDraft(event.currentTarget.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
}

function TraceView({ traceId }: { traceId: string }) {
  const trace = useApi(
    (signal) => api<Trace>('GET', `/api/public/v2/traces/${encodeURIComponent(traceId)}`, { signal }),
    [traceId],
  );
  const format = useFormatTime();
  if (trace.loading) return <Loading what="Loading the trace" />;
  if (trace.error || !trace.data) return <ErrorMessage>{trace.error ?? 'No trace'}</ErrorMessage>;
  const data = trace.data;
  return (
    <>
      <dl class="trace-summary">
        <dt>Started</dt>
        <dd>{format(data.start_time, 'ms')}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(data.duration_ms)}</dd>
        <dt>Spans</dt>
        <dd>{data.span_count.toLocaleString('en-US')}</dd>
      </dl>
      {data.truncated ? (
        <p class="notice">
          This trace has more spans than one answer holds: the first {data.span_count.toLocaleString('en-US')}{' '}
          by start time are shown.
        </p>
      ) : null}
      {data.detail_truncated ? (
        <p class="notice">Some spans' attributes were left out to keep the answer within its size limit.</p>
      ) : null}
      <Waterfall trace={data} />
    </>
  );
}

function Waterfall({ trace }: { trace: Trace }) {
  const [selectedId] = useQueryParam('span');
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const viewport = useRef<HTMLElement>(null);
  const rows = useMemo(() => waterfallRows(trace.spans, collapsed), [trace, collapsed]);
  const selectedIndex = rows.findIndex((row) => row.span.span_id === selectedId);
  const selected = selectedIndex >= 0 ? rows[selectedIndex]?.span : findSpan(trace.spans, selectedId);

  // A span chosen with j/k takes the focus once its row is rendered (it may have been scrolled out).
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    const id = focusNext.current;
    if (!id) return;
    focusNext.current = null;
    viewport.current?.querySelector<HTMLElement>(`[data-span-id="${CSS.escape(id)}"]`)?.focus();
  });

  const select = (index: number) => {
    const row = rows[index];
    if (!row) return;
    focusNext.current = row.span.span_id;
    setQuery({ span: row.span.span_id }, 'replace');
    const element = viewport.current;
    if (!element) return;
    const top = index * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight)
      element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  };
  const toggle = (span: SpanNode) =>
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (!next.delete(span.span_id)) next.add(span.span_id);
      return next;
    });

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil(scrollTop / ROW_HEIGHT) + VIEW_ROWS + OVERSCAN);
  const visible = rows.slice(first, last);

  return (
    <div class="waterfall-layout">
      <div class="waterfall">
        <Axis durationMs={trace.duration_ms} />
        <section
          ref={viewport}
          class="waterfall-viewport"
          aria-label="Spans: j and k move, Escape closes the details"
          onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
          onKeyDown={(event) => {
            // Keys reach here from the row buttons inside; Enter and Space stay the buttons' own.
            // A key pressed before the last one's render moves on from the span that key chose.
            const pending = focusNext.current
              ? rows.findIndex((row) => row.span.span_id === focusNext.current)
              : -1;
            const from = pending >= 0 ? pending : selectedIndex;
            if (event.key === 'j') select(Math.min(rows.length - 1, from + 1));
            else if (event.key === 'k') select(Math.max(0, from - 1));
            else if (event.key === 'Escape') setQuery({ span: null }, 'replace');
            else return;
            event.preventDefault();
          }}
        >
          <div class="waterfall-canvas" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
            <ol class="waterfall-rows" style={{ transform: `translateY(${first * ROW_HEIGHT}px)` }}>
              {visible.map((row) => (
                <SpanRow
                  key={row.span.span_id}
                  row={row}
                  selected={row.span.span_id === selectedId}
                  collapsed={collapsed.has(row.span.span_id)}
                  onSelect={() => setQuery({ span: row.span.span_id }, 'replace')}
                  onToggle={() => toggle(row.span)}
                />
              ))}
            </ol>
          </div>
        </section>
      </div>
      {selected ? <SpanDetails span={selected} /> : null}
    </div>
  );
}

function Axis({ durationMs }: { durationMs: number }) {
  const ticks = axisTicks(durationMs);
  return (
    <div class="waterfall-axis" aria-hidden="true">
      {ticks.map((tick) => (
        <span
          key={tick}
          style={{
            left: `calc(var(--name-width) + (100% - var(--name-width)) * ${durationMs > 0 ? tick / durationMs : 0})`,
          }}
        >
          {formatDuration(tick)}
        </span>
      ))}
    </div>
  );
}

function SpanRow(props: {
  row: WaterfallRow;
  selected: boolean;
  collapsed: boolean;
  onSelect(): void;
  onToggle(): void;
}) {
  const { span, depth, offset, width } = props.row;
  const failed = span.status.status_code.endsWith('ERROR');
  return (
    <li class={`waterfall-row${props.selected ? ' selected' : ''}${failed ? ' failed' : ''}`}>
      <span class="span-name" style={{ paddingLeft: `${depth * 0.9}rem` }}>
        {span.children.length > 0 ? (
          <button
            type="button"
            class="span-toggle"
            aria-expanded={!props.collapsed}
            aria-label={`${props.collapsed ? 'Show' : 'Hide'} the ${span.children.length} children of ${span.name}`}
            onClick={props.onToggle}
          >
            {props.collapsed ? '▸' : '▾'}
          </button>
        ) : (
          <span class="span-toggle-space" />
        )}
        <button
          type="button"
          class="span-select"
          data-span-id={span.span_id}
          aria-pressed={props.selected}
          onClick={props.onSelect}
        >
          {span.name}
          {failed ? <span class="visually-hidden"> (error)</span> : null}
        </button>
      </span>
      <span class="span-track" aria-hidden="true">
        <span class="span-bar" style={{ left: `${offset * 100}%`, width: `max(2px, ${width * 100}%)` }} />
        <span class="span-duration" style={{ left: `min(${(offset + width) * 100}%, calc(100% - 4.5rem))` }}>
          {formatDuration(span.duration_ms)}
        </span>
      </span>
    </li>
  );
}

function SpanDetails({ span }: { span: SpanNode }) {
  const format = useFormatTime();
  const startMs = Number(BigInt(span.start_time_unix_nano) / 1_000_000n);
  return (
    <aside class="span-details" aria-labelledby="span-title">
      <header>
        <h2 id="span-title">{span.name}</h2>
        <button
          type="button"
          aria-label="Close the span's details"
          onClick={() => setQuery({ span: null }, 'replace')}
        >
          ×
        </button>
      </header>
      <dl>
        <dt>Span id</dt>
        <dd>
          <code>{span.span_id}</code>
        </dd>
        <dt>Kind</dt>
        <dd>{span.kind}</dd>
        <dt>Status</dt>
        <dd>
          {span.status.status_code}
          {span.status.description ? ` — ${span.status.description}` : ''}
        </dd>
        <dt>Started</dt>
        <dd>{format(startMs, 'ms')}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(span.duration_ms)}</dd>
        {span.request_log_id !== null ? (
          <>
            <dt>Request log</dt>
            <dd>
              <a
                href={dashboardUrl(`requests?sel=${span.request_log_id}`)}
                onClick={(event) => {
                  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                  event.preventDefault();
                  navigate(`requests?sel=${span.request_log_id}`);
                }}
              >
                Open request {span.request_log_id}
              </a>
            </dd>
          </>
        ) : null}
      </dl>
      {span.detail_omitted ? (
        <p class="muted">Attributes left out of this answer (size limit).</p>
      ) : (
        <>
          <h3>Attributes</h3>
          <JsonView value={span.attributes ?? {}} />
          {span.events && span.events.length > 0 ? (
            <>
              <h3>Events</h3>
              <JsonView value={span.events} />
            </>
          ) : null}
        </>
      )}
    </aside>
  );
}

function findSpan(roots: readonly SpanNode[], id: string): SpanNode | undefined {
  if (!id) return undefined;
  const stack = [...roots];
  for (let span = stack.pop(); span; span = stack.pop()) {
    if (span.span_id === id) return span;
    stack.push(...span.children);
  }
  return undefined;
}

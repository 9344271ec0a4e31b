import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import {
  addFilter,
  type Filter,
  type LogQuery,
  RANGES,
  type RangePreset,
  readLogQuery,
  toApiQuery,
  writeLogQuery,
} from '../../lib/log-query.ts';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import {
  type Analytics,
  errorRate,
  type TimeSeriesChart,
  timeSeriesCharts,
  totalErrors,
} from './analytics-data.ts';
import { formatCost, formatCount, formatLatency, formatPercent, formatValue } from './format.ts';
import type { TimeChartProps } from './time-chart.tsx';

/**
 * Analytics: KPIs, time series and breakdowns of the request logs the URL's query selects (the same
 * filters as Requests: a filter set on one screen holds on the other). A bar of a breakdown adds its
 * filter; dragging across a chart zooms the time range; every chart has a table alternative.
 */
export default function AnalyticsScreen() {
  const query = readLogQuery(useQuery());
  const body = JSON.stringify(toApiQuery(query));
  const analytics = useApi(
    (signal) =>
      api<Analytics>('POST', '/api/public/v2/requests/analytics', { body: JSON.parse(body), signal }),
    [body],
  );
  const apply = (next: LogQuery) => setQuery(writeLogQuery(next));
  const filterBy = (filter: Filter) => apply(addFilter(query, filter));
  return (
    <section aria-labelledby="screen-title" class="analytics">
      <h1 id="screen-title">Analytics</h1>
      <RangePicker query={query} onChange={apply} />
      <FilterBar />
      {analytics.loading && !analytics.data ? (
        <Loading what="Loading analytics" />
      ) : analytics.error ? (
        <ErrorMessage>{analytics.error}</ErrorMessage>
      ) : analytics.data ? (
        <AnalyticsView
          data={analytics.data}
          onFilter={filterBy}
          onZoom={(from, to) => apply({ ...query, from, to })}
        />
      ) : null}
    </section>
  );
}

function RangePicker({ query, onChange }: { query: LogQuery; onChange(next: LogQuery): void }) {
  const format = useFormatTime();
  const zoomed = query.from !== undefined && query.to !== undefined;
  return (
    <div class="range-picker">
      <fieldset>
        <legend class="visually-hidden">Time range</legend>
        {(Object.keys(RANGES) as RangePreset[]).map((range) => (
          <button
            key={range}
            type="button"
            aria-pressed={!zoomed && query.range === range}
            onClick={() => onChange({ ...query, range, from: undefined, to: undefined })}
          >
            Last {range}
          </button>
        ))}
      </fieldset>
      {zoomed ? (
        <p class="zoomed">
          {format(query.from)} – {format(query.to)}{' '}
          <button type="button" onClick={() => onChange({ ...query, from: undefined, to: undefined })}>
            Reset zoom
          </button>
        </p>
      ) : null}
    </div>
  );
}

function AnalyticsView(props: {
  data: Analytics;
  onFilter(filter: Filter): void;
  onZoom(from: string, to: string): void;
}) {
  const { data } = props;
  const errors = totalErrors(data);
  const promptIds = new Map(data.promptBreakdown.map((row) => [row.promptName, Number(row.promptId)]));
  return (
    <>
      {data.incomplete_results ? (
        <p class="notice">
          Answered from the newest logs the search reads at most: narrow the time range or the filters for
          exact figures.
        </p>
      ) : null}
      {data.breakdowns_partial ? (
        <p class="notice">
          With this filter the rollups answer its own dimension only: the error rate and the breakdowns by
          other dimensions are left out. Open Requests with the same filter to see each log.
        </p>
      ) : null}
      <dl class="kpis">
        <Kpi label="Requests" value={formatCount(data.totalRequests)} />
        <Kpi label="Cost" value={formatCost(data.totalCost)} />
        <Kpi label="Tokens" value={formatCount(data.totalTokens)} />
        <Kpi label="Latency p50" value={formatLatency(data.latencyPercentiles.p50, data.totalRequests)} />
        <Kpi label="Latency p95" value={formatLatency(data.latencyPercentiles.p95, data.totalRequests)} />
        <Kpi
          label="Error rate"
          value={errors === null ? '—' : formatPercent(errorRate(data.totalRequests, errors))}
        />
      </dl>
      <div class="charts">
        {timeSeriesCharts(data).map((chart) => (
          <ChartCard key={chart.id} chart={chart} onZoom={props.onZoom} />
        ))}
      </div>
      <div class="breakdowns">
        <BreakdownList
          title="By model"
          rows={data.modelBreakdown.map((row) => ({
            label: row.model,
            requests: row.requests,
            cost: row.cost,
            filters: [{ field: 'engine', operator: 'is', value: row.model }],
          }))}
          onFilter={props.onFilter}
        />
        <BreakdownList
          title="By prompt"
          rows={data.promptBreakdown.map((row) => ({
            label: row.promptName,
            requests: row.requests,
            cost: row.cost,
            filters: [{ field: 'prompt_id', operator: 'eq', value: Number(row.promptId) }],
          }))}
          onFilter={props.onFilter}
        />
        <BreakdownList
          title="By prompt version"
          rows={data.promptVersionBreakdown.map((row) => {
            const at = row.promptVersion.lastIndexOf('@');
            const id = promptIds.get(row.promptVersion.slice(0, at));
            const version = Number(row.promptVersion.slice(at + 1));
            return {
              label: row.promptVersion,
              requests: row.requests,
              cost: row.cost,
              filters:
                id === undefined
                  ? []
                  : [
                      { field: 'prompt_id', operator: 'eq', value: id },
                      { field: 'prompt_version_number', operator: 'eq', value: version },
                    ],
            };
          })}
          onFilter={props.onFilter}
        />
        <BreakdownList
          title="By tag"
          rows={data.tagsBreakdown.map((row) => ({
            label: row.tag,
            requests: row.requests,
            cost: row.cost,
            filters: [{ field: 'tags', operator: 'contains', value: row.tag }],
          }))}
          onFilter={props.onFilter}
        />
        <BreakdownList
          title="By metadata"
          rows={data.metadataValueBreakdown.map((row) => ({
            label: `${row.key} = ${row.value}`,
            requests: row.requests,
            cost: row.cost,
            filters: [{ field: 'metadata', operator: 'key_equals', nested_key: row.key, value: row.value }],
          }))}
          onFilter={props.onFilter}
        />
      </div>
      <p class="muted">
        Answered from {data.source === 'rollups' ? 'the rollups' : 'the request logs'}, in{' '}
        {data.chartInterval.interval} buckets.
      </p>
    </>
  );
}

function Kpi({ label, value }: { label: string; value: string }) {
  return (
    <div class="kpi">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** The chart module (uPlot) is its own chunk, loaded when the first chart shows. */
let chartModule: Promise<ComponentType<TimeChartProps>> | undefined;
const loadChart = () => {
  chartModule ??= import('./time-chart.tsx').then((module) => module.TimeChart);
  chartModule.catch(() => {
    chartModule = undefined;
  });
  return chartModule;
};

function ChartCard({ chart, onZoom }: { chart: TimeSeriesChart; onZoom(from: string, to: string): void }) {
  const [asTable, setAsTable] = useState(false);
  const [Chart, setChart] = useState<ComponentType<TimeChartProps> | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (asTable || Chart) return;
    loadChart().then(
      (component) => setChart(() => component),
      (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)),
    );
  }, [asTable]);
  const titleId = `chart-${chart.id}`;
  const hasPoints = chart.series.some((series) => series.values.some((value) => value !== null));
  return (
    <figure class="chart-card" aria-labelledby={titleId}>
      <figcaption>
        <h2 id={titleId}>{chart.title}</h2>
        <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          Show as table
        </button>
      </figcaption>
      {asTable ? (
        <ChartTable chart={chart} />
      ) : !hasPoints ? (
        // Latency and error rate have no value without requests: an empty plot would look broken.
        <p class="chart-empty">No requests in this time range: nothing to plot.</p>
      ) : failed ? (
        <ErrorMessage>The chart could not load: {failed}</ErrorMessage>
      ) : Chart ? (
        <Chart chart={chart} onZoom={onZoom} />
      ) : (
        <Loading what="Loading the chart" />
      )}
    </figure>
  );
}

function ChartTable({ chart }: { chart: TimeSeriesChart }) {
  const format = useFormatTime();
  return (
    // A scrolling region is focusable so keyboard users can scroll it (axe: scrollable-region-focusable).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    <section class="chart-table" tabIndex={0} aria-label={`${chart.title} as a table`}>
      <table>
        <caption class="visually-hidden">{chart.title} by time</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {chart.series.map((series) => (
              <th key={series.label} scope="col">
                {series.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {chart.times.map((time, index) => (
            <tr key={time}>
              <th scope="row">{format(time * 1000)}</th>
              {chart.series.map((series) => (
                <td key={series.label}>{formatValue(series.values[index] ?? null, chart.unit)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface BreakdownRow {
  label: string;
  requests: number;
  cost: number;
  /** The conditions a click on the bar adds (none: not filterable). */
  filters: Filter[];
}

function BreakdownList(props: { title: string; rows: BreakdownRow[]; onFilter(filter: Filter): void }) {
  const top = props.rows.slice(0, 10);
  const most = Math.max(1, ...top.map((row) => row.requests));
  return (
    <section class="breakdown" aria-label={props.title}>
      <h2>{props.title}</h2>
      {top.length === 0 ? (
        <p class="muted">No requests.</p>
      ) : (
        <ul>
          {top.map((row) => (
            <li key={row.label}>
              <button
                type="button"
                class="breakdown-bar"
                disabled={row.filters.length === 0}
                title={row.filters.length > 0 ? 'Filter to these requests' : undefined}
                onClick={() => {
                  for (const filter of row.filters) props.onFilter(filter);
                }}
              >
                <span class="breakdown-label">{row.label}</span>
                <span class="breakdown-figures">
                  {formatCount(row.requests)} · {formatCost(row.cost)}
                </span>
                <span
                  class="breakdown-fill"
                  aria-hidden="true"
                  style={{ width: `${(row.requests / most) * 100}%` }}
                />
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

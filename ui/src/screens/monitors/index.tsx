import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useCanEdit } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQueryParam } from '../../lib/url-state.ts';
import {
  COMPARISON_SIGNS,
  type Comparison,
  canComputeValue,
  crosses,
  currentValue,
  formatMetric,
  type Metric,
  type Monitor,
} from './current-value.ts';
import { EvaluatorState } from './evaluator.tsx';

const MONITORS = '/api/public/v2/monitors';
const METRICS: Record<Metric, string> = {
  cost: 'Cost (USD)',
  requests: 'Requests',
  error_rate: 'Error rate (fraction)',
  latency_p95: 'Latency p95 (ms)',
  tokens: 'Tokens',
};

/**
 * Monitors: the workspace's monitors, create / edit / delete, and for the selected one (`monitor` in the
 * URL) its value now against the threshold, computed from the analytics route over the monitor's window.
 */
export default function MonitorsScreen() {
  const [selected] = useQueryParam('monitor');
  const [editing] = useQueryParam('edit');
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  const list = useApi((signal) => api<{ monitors: Monitor[] }>('GET', MONITORS, { signal }), [version]);
  const canEdit = useCanEdit('monitors');
  const monitors = list.data?.monitors ?? [];
  const current = monitors.find((monitor) => String(monitor.id) === selected);
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Monitors</h1>
      {canEdit ? (
        <p>
          <button type="button" onClick={() => setQuery({ edit: 'new', monitor: null })}>
            New monitor
          </button>
        </p>
      ) : null}
      {list.error ? <ErrorMessage>{list.error}</ErrorMessage> : null}
      {list.loading && !list.data ? <Loading what="Loading monitors" /> : null}
      {list.data ? <MonitorTable monitors={monitors} selected={selected} /> : null}
      {editing === 'new' ? (
        <MonitorForm key="new" onSaved={reload} />
      ) : editing && current ? (
        <MonitorForm key={current.id} monitor={current} onSaved={reload} />
      ) : null}
      {current && !editing ? <MonitorDetail monitor={current} canEdit={canEdit} onDeleted={reload} /> : null}
    </section>
  );
}

function MonitorTable({ monitors, selected }: { monitors: Monitor[]; selected: string }) {
  if (monitors.length === 0) return <p class="muted">No monitors yet.</p>;
  return (
    <table class="monitors-table">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Metric</th>
          <th scope="col">Filter</th>
          <th scope="col">Window</th>
          <th scope="col">Threshold</th>
          <th scope="col">Active</th>
        </tr>
      </thead>
      <tbody>
        {monitors.map((monitor) => (
          <tr key={monitor.id} aria-selected={String(monitor.id) === selected}>
            <td>
              <button
                type="button"
                class="link-button"
                onClick={() => setQuery({ monitor: String(monitor.id), edit: null })}
              >
                {monitor.name}
              </button>
            </td>
            <td>{METRICS[monitor.metric]}</td>
            <td>{describeScope(monitor)}</td>
            <td>{formatWindow(monitor.window_minutes)}</td>
            <td>
              {COMPARISON_SIGNS[monitor.comparison]} {formatMetric(monitor.metric, monitor.threshold)}
            </td>
            <td>{monitor.is_active ? 'Yes' : 'Off'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const describeScope = (monitor: Monitor): string =>
  monitor.filter
    ? `${monitor.filter.dimension} = ${monitor.filter.value}`
    : monitor.group_by
      ? `each ${monitor.group_by}`
      : 'all requests';

function formatWindow(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

function MonitorDetail({
  monitor,
  canEdit,
  onDeleted,
}: {
  monitor: Monitor;
  canEdit: boolean;
  onDeleted: () => void;
}) {
  const format = useFormatTime();
  const [refresh, setRefresh] = useState(0);
  const computable = canComputeValue(monitor);
  const value = useApi(
    (signal) => (computable ? currentValue(monitor, signal) : Promise.resolve(null)),
    [monitor.id, monitor.updated_at, refresh],
  );
  const [error, setError] = useState<string>();
  const remove = async () => {
    if (!confirm(`Delete the monitor "${monitor.name}"?`)) return;
    try {
      await api('DELETE', `${MONITORS}/${monitor.id}`);
      setQuery({ monitor: null });
      onDeleted();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const over = value.data !== undefined && crosses(monitor, value.data);
  return (
    <article class="monitor-detail" aria-labelledby="monitor-title">
      <h2 id="monitor-title">{monitor.name}</h2>
      <dl class="monitor-facts">
        <dt>Metric</dt>
        <dd>{METRICS[monitor.metric]}</dd>
        <dt>Watches</dt>
        <dd>{describeScope(monitor)}</dd>
        <dt>Window</dt>
        <dd>{formatWindow(monitor.window_minutes)}</dd>
        <dt>Cool-down</dt>
        <dd>{monitor.cooldown_minutes === 0 ? 'none' : formatWindow(monitor.cooldown_minutes)}</dd>
        <dt>Changed</dt>
        <dd>{format(monitor.updated_at)}</dd>
      </dl>
      <h3>Now</h3>
      {!computable ? (
        <p class="muted">
          The dashboard cannot compute this monitor's value:{' '}
          {monitor.group_by ? 'it watches each value of a dimension' : 'its filter is not a search field'}.
        </p>
      ) : value.loading && value.data === undefined ? (
        <Loading what="Reading the window" />
      ) : value.error ? (
        <ErrorMessage>{value.error}</ErrorMessage>
      ) : (
        <>
          <p class={over ? 'monitor-state over' : 'monitor-state'}>
            {over ? 'TRIGGERED' : 'OK'}: {formatMetric(monitor.metric, value.data ?? null)}{' '}
            {COMPARISON_SIGNS[monitor.comparison]} threshold {formatMetric(monitor.metric, monitor.threshold)}{' '}
            {over ? 'holds' : 'does not hold'} over the last {formatWindow(monitor.window_minutes)}
          </p>
          <ValueBar monitor={monitor} value={value.data ?? null} over={over} />
        </>
      )}
      <h3>Evaluator</h3>
      <EvaluatorState monitor={monitor} refresh={refresh} />
      <p class="muted">
        Triggers and resolves are sent as <code>monitor_triggered</code> / <code>monitor_resolved</code>{' '}
        webhook events: see the workspace's webhook deliveries.
      </p>
      <div class="monitor-actions">
        <button type="button" onClick={() => setRefresh((n) => n + 1)}>
          Refresh value
        </button>
        {canEdit ? (
          <>
            <button type="button" onClick={() => setQuery({ edit: String(monitor.id) })}>
              Edit
            </button>
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
          </>
        ) : null}
      </div>
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </article>
  );
}

/** The value and the threshold on one scale (the larger of the two, plus a margin). */
function ValueBar({ monitor, value, over }: { monitor: Monitor; value: number | null; over: boolean }) {
  const scale = Math.max(monitor.threshold, value ?? 0) * 1.25 || 1;
  const percent = (n: number) => `${Math.min(100, (n / scale) * 100)}%`;
  return (
    <div
      class="monitor-bar"
      role="img"
      aria-label={`Value ${formatMetric(monitor.metric, value)}, threshold ${formatMetric(monitor.metric, monitor.threshold)}`}
    >
      <div
        class={over ? 'monitor-bar-value over' : 'monitor-bar-value'}
        style={{ width: percent(value ?? 0) }}
      />
      <div class="monitor-bar-threshold" style={{ left: percent(monitor.threshold) }} />
    </div>
  );
}

interface Draft {
  name: string;
  metric: Metric;
  dimension: string;
  value: string;
  group_by: string;
  window_minutes: string;
  threshold: string;
  comparison: Comparison;
  cooldown_minutes: string;
  is_active: boolean;
}

function draftOf(monitor?: Monitor): Draft {
  return {
    name: monitor?.name ?? '',
    metric: monitor?.metric ?? 'cost',
    dimension: monitor?.filter?.dimension ?? '',
    value: monitor?.filter?.value ?? '',
    group_by: monitor?.group_by ?? '',
    window_minutes: String(monitor?.window_minutes ?? 60),
    threshold: String(monitor?.threshold ?? ''),
    comparison: monitor?.comparison ?? 'gt',
    cooldown_minutes: String(monitor?.cooldown_minutes ?? 60),
    is_active: monitor?.is_active ?? true,
  };
}

/** Create (no monitor) or edit; metric, filter and group-by are fixed once created, as the API says. */
function MonitorForm({ monitor, onSaved }: { monitor?: Monitor; onSaved: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(monitor));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(draftOf(monitor)), [monitor?.id]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const fixed = monitor !== undefined;
  const submit = async (event: Event) => {
    event.preventDefault();
    const changes = {
      name: draft.name,
      window_minutes: Number(draft.window_minutes),
      threshold: Number(draft.threshold),
      comparison: draft.comparison,
      cooldown_minutes: Number(draft.cooldown_minutes),
      is_active: draft.is_active,
    };
    setBusy(true);
    setError(undefined);
    try {
      const saved = fixed
        ? await api<{ monitor: Monitor }>('PATCH', `${MONITORS}/${monitor.id}`, { body: changes })
        : await api<{ monitor: Monitor }>('POST', MONITORS, {
            body: {
              ...changes,
              metric: draft.metric,
              filter: draft.dimension ? { dimension: draft.dimension, value: draft.value } : null,
              group_by: draft.group_by || null,
            },
          });
      setQuery({ edit: null, monitor: String(saved.monitor.id) });
      onSaved();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="monitor-form" onSubmit={submit} aria-labelledby="monitor-form-title">
      <h2 id="monitor-form-title">{fixed ? `Edit ${monitor.name}` : 'New monitor'}</h2>
      <label>
        Name
        <input
          value={draft.name}
          required
          maxLength={200}
          onInput={(e) => set('name', e.currentTarget.value)}
        />
      </label>
      <label>
        Metric
        <select
          value={draft.metric}
          disabled={fixed}
          onChange={(e) => set('metric', e.currentTarget.value as Metric)}
        >
          {(Object.keys(METRICS) as Metric[]).map((metric) => (
            <option key={metric} value={metric}>
              {METRICS[metric]}
            </option>
          ))}
        </select>
      </label>
      <fieldset disabled={fixed}>
        <legend>Only requests where (optional)</legend>
        <label>
          Dimension
          <input
            value={draft.dimension}
            list="monitor-dimensions"
            placeholder="model, tag, metadata.user_id, prompt_label…"
            onInput={(e) => set('dimension', e.currentTarget.value)}
          />
        </label>
        <datalist id="monitor-dimensions">
          {[
            'model',
            'provider',
            'prompt',
            'prompt_version',
            'status',
            'error_type',
            'tag',
            'prompt_label',
          ].map((dimension) => (
            <option key={dimension} value={dimension} />
          ))}
        </datalist>
        <label>
          Value
          <input
            value={draft.value}
            placeholder="gpt-4o, or <prompt name>:<label> for prompt_label"
            onInput={(e) => set('value', e.currentTarget.value)}
          />
        </label>
        <label>
          Or watch each value of
          <input
            value={draft.group_by}
            list="monitor-dimensions"
            placeholder="metadata.user_id"
            onInput={(e) => set('group_by', e.currentTarget.value)}
          />
        </label>
      </fieldset>
      <label>
        Window (minutes)
        <input
          type="number"
          min={5}
          max={43200}
          step={1}
          required
          value={draft.window_minutes}
          onInput={(e) => set('window_minutes', e.currentTarget.value)}
        />
      </label>
      <label>
        Comparison
        <select
          value={draft.comparison}
          onChange={(e) => set('comparison', e.currentTarget.value as Comparison)}
        >
          <option value="gt">above (&gt;)</option>
          <option value="gte">at or above (≥)</option>
          <option value="lt">below (&lt;)</option>
          <option value="lte">at or below (≤)</option>
        </select>
      </label>
      <label>
        Threshold
        <input
          type="number"
          min={0}
          step="any"
          required
          value={draft.threshold}
          onInput={(e) => set('threshold', e.currentTarget.value)}
        />
      </label>
      <label>
        Cool-down (minutes)
        <input
          type="number"
          min={0}
          max={10080}
          step={1}
          value={draft.cooldown_minutes}
          onInput={(e) => set('cooldown_minutes', e.currentTarget.value)}
        />
      </label>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={draft.is_active}
          onChange={(e) => set('is_active', e.currentTarget.checked)}
        />
        Active
      </label>
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
      <div class="monitor-actions">
        <button type="submit" disabled={busy}>
          {fixed ? 'Save' : 'Create monitor'}
        </button>
        <button type="button" onClick={() => setQuery({ edit: null })}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { formatMetric, type Monitor } from './current-value.ts';

/** `GET /monitors/{id}/state`: what the service's evaluator last decided. */
interface MonitorState {
  status: 'ok' | 'triggered';
  triggered_groups: number;
  last_evaluated_at: string | null;
  last_value: number | null;
  last_group_value: string | null;
  recent_evaluations: { evaluated_at: string; value: number | null; group_value: string | null }[];
  recent_transitions: {
    transition: 'triggered' | 'resolved';
    at: string;
    value: number | null;
    group_value: string | null;
  }[];
}

/** The evaluator's state, its recent values against the threshold (a sparkline) and recent triggers. */
export function EvaluatorState({ monitor, refresh }: { monitor: Monitor; refresh: number }) {
  const format = useFormatTime();
  const answer = useApi(
    (signal) =>
      api<{ state: MonitorState }>('GET', `/api/public/v2/monitors/${monitor.id}/state`, { signal }),
    [monitor.id, monitor.updated_at, refresh],
  );
  if (answer.error) return <ErrorMessage>{answer.error}</ErrorMessage>;
  if (!answer.data) return <Loading what="Reading the evaluator's state" />;
  const { state } = answer.data;
  const group = monitor.group_by && state.last_group_value !== null ? ` (${state.last_group_value})` : '';
  return (
    <>
      <p class={state.status === 'triggered' ? 'monitor-evaluator over' : 'monitor-evaluator'}>
        {state.last_evaluated_at === null
          ? 'Not evaluated yet (the evaluator runs every minute).'
          : `${state.status === 'triggered' ? 'TRIGGERED' : 'OK'}${
              monitor.group_by ? ` (${state.triggered_groups} triggered)` : ''
            } · last evaluated ${format(state.last_evaluated_at)} · value ${formatMetric(
              monitor.metric,
              state.last_value,
            )}${group}`}
      </p>
      <Sparkline monitor={monitor} points={state.recent_evaluations} />
      <h3>Recent triggers</h3>
      {state.recent_transitions.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <table class="monitor-transitions">
          <caption class="visually-hidden">Recent triggers and resolves, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              {monitor.group_by ? <th scope="col">{monitor.group_by}</th> : null}
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {[...state.recent_transitions].reverse().map((entry) => (
              <tr key={`${entry.at}-${entry.group_value}-${entry.transition}`}>
                <td>{format(entry.at)}</td>
                <td class={entry.transition === 'triggered' ? 'over' : ''}>{entry.transition}</td>
                {monitor.group_by ? <td>{entry.group_value ?? '—'}</td> : null}
                <td>{formatMetric(monitor.metric, entry.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

const WIDTH = 240;
const HEIGHT = 48;

/** The recent evaluations as a line, the threshold as a dashed line across (SVG, geometry only). */
function Sparkline({ monitor, points }: { monitor: Monitor; points: MonitorState['recent_evaluations'] }) {
  const values = points.map((point) => point.value ?? 0);
  if (values.length < 2) return null;
  const top = Math.max(monitor.threshold, ...values) * 1.25 || 1;
  const x = (index: number) => (index / (values.length - 1)) * WIDTH;
  const y = (value: number) => HEIGHT - (value / top) * HEIGHT;
  const line = values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
  const last = values[values.length - 1] ?? 0;
  return (
    <svg
      class="monitor-sparkline"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={`The last ${values.length} evaluations, from ${formatMetric(monitor.metric, values[0] ?? 0)} to ${formatMetric(monitor.metric, last)}; threshold ${formatMetric(monitor.metric, monitor.threshold)}`}
    >
      <line
        class="monitor-sparkline-threshold"
        x1="0"
        x2={WIDTH}
        y1={y(monitor.threshold)}
        y2={y(monitor.threshold)}
      />
      <polyline class="monitor-sparkline-value" points={line} />
    </svg>
  );
}

import { useState } from 'preact/hooks';
import { errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { formatDuration } from '../../lib/time.ts';
import { setQuery } from '../../lib/url-state.ts';
import { type Label, moveLabel, readTraffic, TRAFFIC_WINDOW_DAYS, type Traffic } from './api.ts';
import { VersionDiff } from './diff.tsx';
import { EvaluationEvidence } from './evidence.tsx';

/**
 * A label move under review (`move=<label>&to=<n>` in the URL): what changes from the label's version
 * to the target, and both versions' traffic over the last days, before `PATCH /prompt-labels/{id}`.
 */
export function LabelReview({
  name,
  promptId,
  label,
  to,
  onMoved,
}: {
  name: string;
  promptId: number;
  label: Label;
  to: number;
  onMoved: () => void;
}) {
  const from = label.prompt_version_number;
  const [failure, setFailure] = useState<string | null>(null);
  const [moving, setMoving] = useState(false);
  const confirm = () => {
    setMoving(true);
    moveLabel(label.release_label_id, to).then(
      () => onMoved(),
      (error) => {
        setFailure(errorMessage(error));
        setMoving(false);
      },
    );
  };
  return (
    <section aria-labelledby="view-title" class="prompts-review">
      <h2 id="view-title">
        Review: move “{label.release_label}” from version {from} to version {to}
      </h2>
      {from === to ? (
        <p class="notice">
          “{label.release_label}” is already on version {to}: nothing to move.
        </p>
      ) : (
        <>
          <TrafficComparison promptId={promptId} from={from} to={to} />
          <EvaluationEvidence name={name} from={from} to={to} />
          <h3>What changes</h3>
          <VersionDiff name={name} a={from} b={to} />
        </>
      )}
      {failure && <ErrorMessage>{failure}</ErrorMessage>}
      <p class="prompts-review-actions">
        {from !== to && (
          <button type="button" class="primary" disabled={moving} onClick={confirm}>
            Move “{label.release_label}” to version {to}
          </button>
        )}
        <button type="button" onClick={() => setQuery({ move: null, to: null })}>
          Cancel
        </button>
      </p>
    </section>
  );
}

const usd = (value: number) => `$${value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 6 : 2)}`;
const seconds = (value: number) => formatDuration(value * 1000);
const errorRate = (traffic: Traffic) =>
  traffic.requests === 0 ? '–' : `${((traffic.errors / traffic.requests) * 100).toFixed(1)} %`;

const ROWS: [string, (traffic: Traffic) => string][] = [
  ['Requests', (traffic) => String(traffic.requests)],
  ['Cost', (traffic) => usd(traffic.cost)],
  ['Latency p50', (traffic) => (traffic.requests ? seconds(traffic.p50) : '–')],
  ['Latency p95', (traffic) => (traffic.requests ? seconds(traffic.p95) : '–')],
  ['Error rate', errorRate],
];

/** The two versions' traffic side by side, from the analytics endpoint (both read at once). */
function TrafficComparison({ promptId, from, to }: { promptId: number; from: number; to: number }) {
  const traffic = useApi(
    (signal) => Promise.all([readTraffic(promptId, from, signal), readTraffic(promptId, to, signal)]),
    [promptId, from, to],
  );
  if (traffic.error) return <ErrorMessage>{traffic.error}</ErrorMessage>;
  if (!traffic.data) return <Loading what="Loading traffic" />;
  const [current, target] = traffic.data;
  const incomplete = current.incomplete || target.incomplete;
  return (
    <table class="prompts-table prompts-traffic">
      <caption>
        Traffic over the last {TRAFFIC_WINDOW_DAYS} days
        {incomplete && ' (newest 50,000 logs examined)'}
      </caption>
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col">Version {from} (now)</th>
          <th scope="col">Version {to} (target)</th>
        </tr>
      </thead>
      <tbody>
        {ROWS.map(([metric, show]) => (
          <tr key={metric}>
            <th scope="row">{metric}</th>
            <td>{show(current)}</td>
            <td>{show(target)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

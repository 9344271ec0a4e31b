import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { ErrorMessage } from '../../components/status.tsx';
import { formatDuration } from '../../lib/time.ts';
import { dashboardUrl, navigate } from '../../lib/url-state.ts';
import type { Blueprint } from '../prompts/api.ts';
import type { RunPlan } from './draft.ts';

/** A replay's new log, as the replay answer and GET /requests/{id} both give it (docs/replay.md). */
interface ReplayLog {
  request_id: number;
  status: 'SUCCESS' | 'WARNING' | 'ERROR' | 'RUNNING';
  provider: string;
  model: string;
  output: Blueprint | null;
  input_tokens: number;
  output_tokens: number;
  price: number;
  latency_ms: number;
  error_type: string | null;
  error_message: string | null;
}

interface LogDetail extends Omit<ReplayLog, 'request_id'> {
  id: number;
}

/** How often a RUNNING replay (202: it goes on as a job) is read again. */
export const POLL_MS = 1_000;

type RunState =
  | { phase: 'sending' }
  | { phase: 'polling'; log: ReplayLog; polls: number; since: number }
  | { phase: 'done'; log: ReplayLog }
  | { phase: 'failed'; error: string };

/**
 * One column's run: POST .../replay with the plan's body, then, while the new log is RUNNING, its GET
 * every second until it ends. A new `plan` starts a new run (the previous one's answers are dropped).
 */
export function RunResult({ plan, label }: { plan: RunPlan; label: string }) {
  const [state, setState] = useState<RunState>({ phase: 'sending' });
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: unknown) =>
      controller.signal.aborted || setState({ phase: 'failed', error: errorMessage(error) });
    const poll = (log: ReplayLog, polls: number, since: number) => {
      setState({ phase: 'polling', log, polls, since });
      timer = setTimeout(() => {
        api<LogDetail>('GET', `/api/public/v2/requests/${log.request_id}`, {
          signal: controller.signal,
        }).then((detail) => {
          const next = { ...detail, request_id: detail.id };
          if (next.status === 'RUNNING') poll(next, polls + 1, since);
          else setState({ phase: 'done', log: next });
        }, fail);
      }, POLL_MS);
    };
    setState({ phase: 'sending' });
    api<{ replay: ReplayLog }>('POST', `/api/public/v2/requests/${plan.requestId}/replay`, {
      body: plan.body,
      signal: controller.signal,
    }).then(({ replay }) => {
      if (controller.signal.aborted) return;
      if (replay.status === 'RUNNING') poll(replay, 0, Date.now());
      else setState({ phase: 'done', log: replay });
    }, fail);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [plan]);

  // The elapsed time of a job ticks while it runs.
  useEffect(() => {
    if (state.phase !== 'polling') return;
    const ticker = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(ticker);
  }, [state.phase]);

  return (
    <div
      class="playground-result"
      aria-live="polite"
      aria-busy={state.phase === 'sending' || state.phase === 'polling'}
    >
      {state.phase === 'sending' && (
        <p>
          <progress aria-label={`${label}: waiting for the provider`} /> Sending…
        </p>
      )}
      {state.phase === 'polling' && (
        <p>
          <progress aria-label={`${label}: running as a job`} /> Running as a job (request{' '}
          {state.log.request_id}): {formatDuration(Math.max(0, now - state.since))} so far, checked{' '}
          {state.polls} {state.polls === 1 ? 'time' : 'times'}
        </p>
      )}
      {state.phase === 'failed' && <ErrorMessage>{state.error}</ErrorMessage>}
      {state.phase === 'done' && <Answer log={state.log} label={label} />}
    </div>
  );
}

/** The text of an output: its text blocks, and tool calls as JSON text. */
function outputText(output: Blueprint | null): string {
  if (!output) return '';
  const messages =
    output.type === 'chat' ? output.messages : [{ role: 'assistant', content: output.content }];
  return messages
    .flatMap((message) => {
      const { role: _role, content, ...rest } = message;
      const parts = (content ?? []).map((block) =>
        block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(block),
      );
      const calls = rest.tool_calls;
      if (Array.isArray(calls) && calls.length > 0) parts.push(JSON.stringify(calls, null, 2));
      return parts;
    })
    .join('\n');
}

const usd = (value: number) =>
  value === 0 ? '$0' : value >= 1 ? `$${value.toFixed(2)}` : `$${Number(value.toPrecision(3))}`;

function Answer({ log, label }: { log: ReplayLog; label: string }) {
  const path = `requests?sel=${log.request_id}`;
  return (
    <>
      <dl class="playground-facts" aria-label={`${label}: usage`}>
        <dt>Status</dt>
        <dd class={`playground-status-${log.status.toLowerCase()}`}>{log.status}</dd>
        <dt>Model</dt>
        <dd>
          {log.model} ({log.provider})
        </dd>
        <dt>Tokens</dt>
        <dd>
          {log.input_tokens} in / {log.output_tokens} out
        </dd>
        <dt>Cost</dt>
        <dd>{usd(log.price)}</dd>
        <dt>Latency</dt>
        <dd>{formatDuration(log.latency_ms)}</dd>
        <dt>Logged as</dt>
        <dd>
          <a
            href={dashboardUrl(path)}
            onClick={(event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
                return;
              event.preventDefault();
              navigate(path);
            }}
          >
            request {log.request_id}
          </a>
        </dd>
      </dl>
      {log.error_message && (
        <ErrorMessage>{`${log.error_type ?? 'Error'}: ${log.error_message}`}</ErrorMessage>
      )}
      <h3 class="playground-answer-title">Answer</h3>
      <pre class="playground-answer">{outputText(log.output)}</pre>
    </>
  );
}

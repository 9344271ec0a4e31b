import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage } from '../../../api/client.ts';
import { useCanEdit } from '../../../api/session.ts';
import { basePath } from '../../../lib/url-state.ts';
import { formatCost } from '../format.ts';
import type { Blueprint, LogDetail, LogStatus } from '../types.ts';
import { Conversation } from './content.tsx';

/** Copy as cURL, replay (docs/replay.md) and add to a dataset. */
export function Actions({ log }: { log: LogDetail }) {
  const canReplay = useCanEdit('request_logs');
  const canAddToDataset = useCanEdit('datasets');
  return (
    <>
      <h3>Actions</h3>
      <CopyCurl id={log.id} />
      {canReplay && <Replay log={log} />}
      {canAddToDataset && <AddToDataset id={log.id} />}
    </>
  );
}

/** The GET of this log as a shell command; the key stays a variable (`$PROMPTOPS_API_KEY`), never the real one. */
export function curlCommand(id: number): string {
  const url = `${location.origin}${basePath()}/api/public/v2/requests/${id}`;
  return `curl -H "X-API-KEY: $PROMPTOPS_API_KEY" '${url}'`;
}

function CopyCurl({ id }: { id: number }) {
  const [copied, setCopied] = useState<string | null>(null);
  const command = curlCommand(id);
  return (
    <div class="request-actions">
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(command).then(
            () => setCopied('Copied.'),
            () => setCopied('The clipboard refused: copy the command below.'),
          )
        }
      >
        Copy as cURL
      </button>
      {copied && (
        <span role="status">
          {copied} <code>{command}</code>
        </span>
      )}
    </div>
  );
}

interface ReplayAnswer {
  replay: {
    request_id: number;
    status: LogStatus;
    model: string;
    output: Blueprint;
    price: number;
    latency_ms: number;
    error_type: string | null;
    error_message: string | null;
  };
}

const POLL_MS = 2_000;

/** Runs the log again (as it was, or on another model) and shows both answers side by side. */
function Replay({ log }: { log: LogDetail }) {
  const [model, setModel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [replay, setReplay] = useState<ReplayAnswer['replay'] | null>(null);

  // A 202 RUNNING replay continues as a job: read its log until it ends.
  useEffect(() => {
    if (replay?.status !== 'RUNNING') return;
    const timer = setTimeout(() => {
      api<LogDetail>('GET', `/api/public/v2/requests/${replay.request_id}`).then(
        (next) =>
          setReplay({
            request_id: next.id,
            status: next.status,
            model: next.model,
            output: next.output,
            price: next.price,
            latency_ms: next.latency_ms,
            error_type: next.error_type,
            error_message: next.error_message,
          }),
        (failure) => setError(errorMessage(failure)),
      );
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [replay]);

  return (
    <>
      <form
        class="request-actions"
        aria-label="Replay"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          api<ReplayAnswer>('POST', `/api/public/v2/requests/${log.id}/replay`, {
            body: model.trim() ? { model: model.trim() } : {},
          })
            .then(
              (answer) => setReplay(answer.replay),
              (failure) => setError(errorMessage(failure)),
            )
            .finally(() => setBusy(false));
        }}
      >
        <label>
          Model for the replay
          <input
            value={model}
            placeholder={log.model}
            maxLength={256}
            onInput={(event) => setModel(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy || replay?.status === 'RUNNING'}>
          {busy ? 'Replaying…' : 'Replay'}
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {replay && (
        <section class="request-compare" aria-label="Original and replay">
          <div>
            <p>
              <strong>Original</strong> {log.model}, {log.status}, {formatCost(log.price)}
            </p>
            <Conversation blueprint={log.output} label="Original output" />
          </div>
          <div>
            <p aria-live="polite">
              <strong>Replay</strong> (request {replay.request_id}) {replay.model}, {replay.status}
              {replay.status === 'RUNNING' ? ': waiting for the provider…' : `, ${formatCost(replay.price)}`}
            </p>
            {replay.error_message && (
              <p class="error">{`${replay.error_type ?? 'Error'}: ${replay.error_message}`}</p>
            )}
            <Conversation blueprint={replay.output} label="Replay output" />
          </div>
        </section>
      )}
    </>
  );
}

interface DatasetsAnswer {
  datasets: { dataset_group: { id: number; name: string } }[];
}

/** Appends the log to a dataset group's draft (`add-request-log`), a group chosen or created here. */
function AddToDataset({ id }: { id: number }) {
  const [groups, setGroups] = useState<{ id: number; name: string }[]>([]);
  const [choice, setChoice] = useState('');
  const [newName, setNewName] = useState('');
  const [state, setState] = useState<{ busy: boolean; message?: string; error?: string }>({ busy: false });
  useEffect(() => {
    const controller = new AbortController();
    api<DatasetsAnswer>('GET', '/api/public/v2/datasets', {
      query: { per_page: 100, sort_by: 'updated_at', sort_order: 'desc' },
      signal: controller.signal,
    }).then(
      (answer) => {
        const byId = new Map(
          answer.datasets.map((dataset) => [dataset.dataset_group.id, dataset.dataset_group]),
        );
        setGroups([...byId.values()]);
      },
      () => undefined,
    );
    return () => controller.abort();
  }, []);

  const add = async (): Promise<string> => {
    let groupId = Number(choice);
    let name = groups.find((group) => group.id === groupId)?.name ?? '';
    if (choice === 'new') {
      const created = await api<{ dataset_group: { id: number; name: string } }>(
        'POST',
        '/api/public/v2/dataset-groups',
        {
          body: { name: newName.trim() },
        },
      );
      groupId = created.dataset_group.id;
      name = created.dataset_group.name;
      setGroups([created.dataset_group, ...groups]);
      setChoice(String(groupId));
    }
    await api('POST', '/api/public/v2/dataset-versions/add-request-log', {
      body: { dataset_group_id: groupId, request_log_id: id },
    });
    return `Added to the draft of ${name}.`;
  };

  return (
    <form
      class="request-actions"
      aria-label="Add to dataset"
      onSubmit={(event) => {
        event.preventDefault();
        setState({ busy: true });
        add().then(
          (message) => setState({ busy: false, message }),
          (error) => setState({ busy: false, error: errorMessage(error) }),
        );
      }}
    >
      <label>
        Dataset
        <select
          aria-label="Dataset"
          required
          value={choice}
          onChange={(event) => setChoice(event.currentTarget.value)}
        >
          <option value="" disabled>
            Choose a dataset
          </option>
          {groups.map((group) => (
            <option key={group.id} value={String(group.id)}>
              {group.name}
            </option>
          ))}
          <option value="new">New dataset…</option>
        </select>
      </label>
      {choice === 'new' && (
        <label>
          New dataset name
          <input
            required
            maxLength={255}
            value={newName}
            onInput={(event) => setNewName(event.currentTarget.value)}
          />
        </label>
      )}
      <button type="submit" disabled={state.busy}>
        Add to dataset
      </button>
      {state.message && <span role="status">{state.message}</span>}
      {state.error && (
        <span class="error" role="alert">
          {state.error}
        </span>
      )}
    </form>
  );
}

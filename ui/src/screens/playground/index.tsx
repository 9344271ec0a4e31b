import { useMemo, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { useCanEdit } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { type Blueprint, readVersion, type TemplateVersion } from '../prompts/api.ts';
import {
  asVersion,
  blueprintMessages,
  type DraftMessage,
  draftMessages,
  editedBlueprint,
  newMessage,
  PARAMETERS,
  type ParameterValues,
  PROVIDERS,
  parameterValues,
  ROLES,
  type RunPlan,
  replayBody,
  type Target,
} from './draft.ts';
import { RunResult } from './run.tsx';
import { SaveVersion } from './save.tsx';

/**
 * Playground: a logged request (`request=<id>`) or a prompt version (`prompt=<name>&version=<n>`) opened
 * for editing (messages, provider and model, parameters), run through the replay endpoint on one model
 * or two side by side (`compare=1`, the second in `provider_b` / `model_b`), and saved as a new version.
 * Runs go through POST /requests/{id}/replay: a prompt version is run on its newest log (docs/dashboard.md).
 */
export default function PlaygroundScreen() {
  const query = useQuery();
  const request = query.get('request');
  const prompt = query.get('prompt');
  const version = Number(query.get('version'));
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Playground</h1>
      {request && /^\d{1,15}$/.test(request) ? (
        <RequestSource id={Number(request)} />
      ) : prompt ? (
        <PromptSource name={prompt} version={Number.isInteger(version) && version > 0 ? version : null} />
      ) : (
        <OpenForm />
      )}
    </section>
  );
}

/** What the editor starts from. */
interface Source {
  kind: 'request' | 'prompt';
  /** A stable identity: the editor starts over when it changes. */
  id: string;
  template: Blueprint;
  /** The version the edits are diffed against and saved after. */
  base: TemplateVersion | null;
  /** The request log a run replays (none: a prompt version no request has used yet). */
  carrier: number | null;
  target: Target;
  parameters: Record<string, unknown> | null;
}

interface LogDetail {
  id: number;
  provider: string;
  model: string;
  input: Blueprint;
  parameters: Record<string, unknown> | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
}

const knownProvider = (provider: string | undefined) =>
  PROVIDERS.find((candidate) => candidate === provider) ?? 'openai';

function RequestSource({ id }: { id: number }) {
  const loaded = useApi(
    async (signal): Promise<Source> => {
      const log = await api<LogDetail>('GET', `/api/public/v2/requests/${id}`, { signal });
      const base =
        log.prompt_name && log.prompt_version_number
          ? await readVersion(log.prompt_name, log.prompt_version_number, signal).catch(() => null)
          : null;
      return {
        kind: 'request',
        id: `request ${id}`,
        template: log.input,
        base,
        carrier: log.id,
        target: { provider: knownProvider(log.provider), model: log.model },
        parameters: log.parameters,
      };
    },
    [id],
  );
  if (loaded.error) return <ErrorMessage>{loaded.error}</ErrorMessage>;
  if (!loaded.data) return <Loading what={`Loading request ${id}`} />;
  return <Editor key={loaded.data.id} source={loaded.data} />;
}

interface SearchAnswer {
  items: { id: number }[];
}

/** The newest request log of a prompt version: the replay endpoint runs a version only on a log. */
async function newestLogOf(promptId: number, version: number, signal: AbortSignal): Promise<number | null> {
  const answer = await api<SearchAnswer>('POST', '/api/public/v2/requests/search', {
    body: {
      filter_group: {
        logic: 'AND',
        filters: [
          { field: 'prompt_id', operator: 'eq', value: promptId },
          { field: 'prompt_version_number', operator: 'eq', value: version },
        ],
      },
      sort_by: 'request_start_time',
      sort_order: 'desc',
      per_page: 1,
    },
    signal,
  });
  return answer.items[0]?.id ?? null;
}

function PromptSource({ name, version }: { name: string; version: number | null }) {
  const loaded = useApi(
    async (signal): Promise<Source> => {
      const found = await readVersion(name, version, signal);
      const model = found.metadata?.model;
      return {
        kind: 'prompt',
        id: `prompt ${name} ${found.version}`,
        template: found.prompt_template,
        base: found,
        carrier: await newestLogOf(found.id, found.version, signal),
        target: { provider: knownProvider(model?.provider), model: model?.name ?? '' },
        parameters: model?.parameters ?? null,
      };
    },
    [name, version],
  );
  if (loaded.error) return <ErrorMessage>{loaded.error}</ErrorMessage>;
  if (!loaded.data) return <Loading what={`Loading ${name}`} />;
  return <Editor key={loaded.data.id} source={loaded.data} />;
}

/** Without a source in the URL: open a request by id or a prompt version by name. */
function OpenForm() {
  const [request, setRequest] = useState('');
  const [prompt, setPrompt] = useState('');
  const [version, setVersion] = useState('');
  return (
    <div class="playground-open">
      <p>
        Open a logged request or a prompt version; or use “Replay with changes” on a request, “Open in
        playground” on a prompt version.
      </p>
      <form
        aria-label="Open a request"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ request: request.trim() });
        }}
      >
        <label>
          Request id
          <input
            required
            inputMode="numeric"
            pattern="\d+"
            value={request}
            onInput={(e) => setRequest(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Open request</button>
      </form>
      <form
        aria-label="Open a prompt version"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ prompt: prompt.trim(), version: version.trim() });
        }}
      >
        <label>
          Prompt name
          <input required value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        </label>
        <label>
          Version (latest if empty)
          <input type="number" min={1} value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
        </label>
        <button type="submit">Open prompt</button>
      </form>
    </div>
  );
}

function Editor({ source }: { source: Source }) {
  const query = useQuery();
  const canRun = useCanEdit('request_logs');
  const canSave = useCanEdit('prompts');
  const initial = useMemo(() => draftMessages(source.template), [source]);
  const [messages, setMessages] = useState<DraftMessage[]>(initial);
  const [parameters, setParameters] = useState<ParameterValues>(() => parameterValues(source.parameters));
  const [plans, setPlans] = useState<RunPlan[]>([]);
  // The models live in the URL (typed: replace), so a reload or a shared link runs the same comparison.
  const targetA: Target = {
    provider: query.get('provider') ?? source.target.provider,
    model: query.get('model') ?? source.target.model,
  };
  const sideBySide = query.get('compare') === '1';
  const targetB: Target = {
    provider: query.get('provider_b') ?? targetA.provider,
    model: query.get('model_b') ?? '',
  };

  if (source.template.type !== 'chat')
    return (
      <ErrorMessage>The playground edits chat templates; this one is a completion template.</ErrorMessage>
    );

  const edited = editedBlueprint(source.template, messages);
  const messagesChanged =
    JSON.stringify(blueprintMessages(messages)) !== JSON.stringify(blueprintMessages(initial));
  const update = (index: number, change: Partial<DraftMessage>) =>
    setMessages(messages.map((message, at) => (at === index ? { ...message, ...change } : message)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...messages];
    const [moved] = next.splice(index, 1);
    if (moved) next.splice(index + by, 0, moved);
    setMessages(next);
  };
  const runSource =
    source.kind === 'prompt' && source.base
      ? { kind: 'prompt' as const, name: source.base.prompt_name, version: source.base.version }
      : { kind: 'request' as const };
  const targets = sideBySide ? [targetA, targetB] : [targetA];

  return (
    <>
      <p class="playground-source">
        From{' '}
        {source.kind === 'request'
          ? source.id
          : `${source.base?.prompt_name} version ${source.base?.version}`}
        {source.kind === 'prompt' &&
          (source.carrier !== null ? (
            <span class="muted"> · runs replay its newest log, request {source.carrier}</span>
          ) : null)}
      </p>
      <form
        class="playground-form"
        aria-label="Playground"
        onSubmit={(event) => {
          event.preventDefault();
          if (source.carrier === null) return;
          const requestId = source.carrier;
          setPlans(
            targets.map((target) => ({
              requestId,
              body: replayBody(runSource, target, parameters, edited, messagesChanged),
            })),
          );
        }}
      >
        <fieldset class="playground-messages">
          <legend>Messages</legend>
          {messages.map((message, index) => {
            const n = index + 1;
            return (
              <fieldset key={message.key} class="playground-message">
                <legend class="visually-hidden">Message {n}</legend>
                <div class="playground-message-bar">
                  <label>
                    Role of message {n}
                    <select
                      value={message.role}
                      onChange={(e) => update(index, { role: e.currentTarget.value })}
                    >
                      {[...new Set([...ROLES, message.role])].map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  </label>
                  <button type="button" disabled={index === 0} onClick={() => move(index, -1)}>
                    Up<span class="visually-hidden"> message {n}</span>
                  </button>
                  <button
                    type="button"
                    disabled={index === messages.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    Down<span class="visually-hidden"> message {n}</span>
                  </button>
                  <button type="button" onClick={() => setMessages(messages.filter((_, at) => at !== index))}>
                    Remove<span class="visually-hidden"> message {n}</span>
                  </button>
                </div>
                <label class="playground-message-text">
                  <span class="visually-hidden">Content of message {n}</span>
                  <textarea
                    rows={Math.min(12, Math.max(3, message.text.split('\n').length + 1))}
                    value={message.text}
                    onInput={(e) => update(index, { text: e.currentTarget.value })}
                  />
                </label>
                {message.otherBlocks.length > 0 && (
                  <p class="muted">
                    and {message.otherBlocks.length} other{' '}
                    {message.otherBlocks.length === 1 ? 'block' : 'blocks'} (
                    {message.otherBlocks.map((block) => block.type).join(', ')}), sent as they were
                  </p>
                )}
              </fieldset>
            );
          })}
          <button
            type="button"
            onClick={() =>
              setMessages([...messages, newMessage(messages.at(-1)?.role === 'user' ? 'assistant' : 'user')])
            }
          >
            Add message
          </button>
        </fieldset>

        <fieldset class="playground-parameters">
          <legend>Parameters</legend>
          {PARAMETERS.map((parameter) => (
            <label key={parameter.name}>
              {parameter.label}
              <input
                type="number"
                min={parameter.min}
                max={parameter.max}
                step={parameter.step}
                value={parameters[parameter.name]}
                onInput={(e) => setParameters({ ...parameters, [parameter.name]: e.currentTarget.value })}
              />
            </label>
          ))}
        </fieldset>

        <fieldset class="playground-models">
          <legend>Models</legend>
          <TargetFields label="Model A" target={targetA} names={{ provider: 'provider', model: 'model' }} />
          {sideBySide && (
            <TargetFields
              label="Model B"
              target={targetB}
              names={{ provider: 'provider_b', model: 'model_b' }}
            />
          )}
          <label class="playground-check">
            <input
              type="checkbox"
              checked={sideBySide}
              onChange={(e) => setQuery({ compare: e.currentTarget.checked ? '1' : null })}
            />
            Side by side on two models
          </label>
        </fieldset>

        {canRun ? (
          <button type="submit" class="primary" disabled={source.carrier === null}>
            Run
          </button>
        ) : (
          <p class="muted">This key may not replay requests (request logs: edit), so it cannot run.</p>
        )}
        {source.carrier === null && (
          <p class="muted">
            No request has used this version yet: the API runs a prompt only as a replay of a logged request,
            so log one (or open a request of this prompt) to run it here.
          </p>
        )}
      </form>

      {plans.length > 0 && (
        <div class={`playground-results playground-results-${plans.length}`}>
          {plans.map((plan, index) => {
            const label = plans.length === 1 ? 'Result' : `Model ${index === 0 ? 'A' : 'B'}`;
            return (
              <section key={index} aria-label={label}>
                <h2>
                  {label}: {String(plan.body.model)}
                </h2>
                <RunResult plan={plan} label={label} />
              </section>
            );
          })}
        </div>
      )}

      {canSave && (
        <SaveVersion base={source.base} edited={asVersion(source.base, edited, targetA, parameters)} />
      )}
    </>
  );
}

function TargetFields({
  label,
  target,
  names,
}: {
  label: string;
  target: Target;
  names: { provider: string; model: string };
}) {
  return (
    <fieldset class="playground-target">
      <legend class="visually-hidden">{label}</legend>
      <label>
        {label} provider
        <select
          value={target.provider}
          onChange={(e) => setQuery({ [names.provider]: e.currentTarget.value }, 'replace')}
        >
          {PROVIDERS.map((provider) => (
            <option key={provider} value={provider}>
              {provider}
            </option>
          ))}
        </select>
      </label>
      <label>
        {label} name
        <input
          required
          maxLength={256}
          value={target.model}
          onInput={(e) => setQuery({ [names.model]: e.currentTarget.value }, 'replace')}
        />
      </label>
    </fieldset>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useCanEdit } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { formatDuration, useFormatTime } from '../../lib/time.ts';
import { setQuery, useQueryParam } from '../../lib/url-state.ts';
import { type SignatureInput, type Verdict, verifySignature } from './verify-signature.ts';

const WEBHOOKS = '/api/public/v2/webhooks';

/** The subscribable event types, from the service's catalogue (read once per page load). */
let catalogue: Promise<string[]> | undefined;
function useEventTypes(): string[] | undefined {
  const answer = useApi(() => {
    catalogue ??= api<{ event_types: { event_type: string; subscribable: boolean }[] }>(
      'GET',
      '/api/public/v2/webhook-event-types',
    ).then(
      ({ event_types }) => event_types.filter((type) => type.subscribable).map((type) => type.event_type),
      (failure: unknown) => {
        catalogue = undefined; // tried again by the next screen that needs it
        throw failure;
      },
    );
    return catalogue;
  }, []);
  return answer.data;
}

const POLL_MS = 2000;

interface Webhook {
  id: number;
  url: string;
  event_types: string[];
  description: string | null;
  is_active: boolean;
  created_at: string;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
}

interface Delivery {
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  dead_lettered: boolean;
}

/** One attempt of a delivery, as `GET .../deliveries/{id}` answers it. */
interface Attempt {
  started_at: string;
  latency_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  headers: Record<
    'webhook-id' | 'webhook-timestamp' | 'webhook-signature' | 'x-promptlayer-signature',
    string
  >;
}

interface DeliveryDetail extends Delivery {
  body: string;
  attempt_log: Attempt[];
}

/** What an attempt gives the verifier: all of it but the secret, which only its owner has. */
type VerifyPrefill = Omit<SignatureInput, 'secret'>;

interface DeliveryPage {
  deliveries: Delivery[];
  page: number;
  pages: number;
  total: number;
}

/** A change made here: lists reload. */
function useRefresh(): [number, () => void] {
  const [tick, setTick] = useState(0);
  return [tick, () => setTick((value) => value + 1)];
}

/**
 * Webhooks: the workspace's endpoints (create, edit, enable, delete, rotate the secret, send a test
 * event), the delivery inspector of one endpoint (`?webhook=<id>&delivery=<id>&status=`), and a
 * signature verifier that runs in the browser.
 */
export default function WebhooksScreen() {
  const [webhookId] = useQueryParam('webhook');
  const [tick, refresh] = useRefresh();
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [prefill, setPrefill] = useState<VerifyPrefill | null>(null);
  const list = useApi((signal) => api<{ webhooks: Webhook[] }>('GET', WEBHOOKS, { signal }), [tick]);
  const selected = list.data?.webhooks.find((webhook) => String(webhook.id) === webhookId);
  return (
    <section aria-labelledby="screen-title" class="webhooks">
      <h1 id="screen-title">Webhooks</h1>
      {secret ? <SecretDialog shown={secret} onClose={() => setSecret(null)} /> : null}
      {list.error ? <ErrorMessage>{list.error}</ErrorMessage> : null}
      {list.data ? <EndpointTable webhooks={list.data.webhooks} selectedId={webhookId} /> : <Loading />}
      <EditOnly entity="webhooks">
        <CreateEndpoint
          onCreated={(webhook, created) => {
            setSecret({ url: webhook.url, secret: created });
            refresh();
            setQuery({ webhook: String(webhook.id), delivery: null, status: null });
          }}
        />
      </EditOnly>
      {selected ? (
        <Endpoint
          key={selected.id}
          webhook={selected}
          onChanged={refresh}
          onSecret={(created) => setSecret({ url: selected.url, secret: created })}
          onVerify={setPrefill}
        />
      ) : null}
      <VerifySignature prefill={prefill} />
    </section>
  );
}

function EndpointTable({ webhooks, selectedId }: { webhooks: Webhook[]; selectedId: string }) {
  const eventTypes = useEventTypes();
  if (webhooks.length === 0) return <p class="muted">No endpoints yet.</p>;
  return (
    <table class="webhook-table">
      <caption class="visually-hidden">Endpoints</caption>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Events</th>
          <th scope="col">State</th>
          <th scope="col">Deliveries</th>
        </tr>
      </thead>
      <tbody>
        {webhooks.map((webhook) => (
          <tr key={webhook.id} class={String(webhook.id) === selectedId ? 'selected' : ''}>
            <td>
              <code>{webhook.url}</code>
              {webhook.description ? <div class="muted">{webhook.description}</div> : null}
            </td>
            <td>{webhook.event_types.length === eventTypes?.length ? 'all' : webhook.event_types.length}</td>
            <td>
              {webhook.is_active ? 'enabled' : 'disabled'}
              {webhook.disabled_reason ? <div class="muted">{webhook.disabled_reason}</div> : null}
            </td>
            <td>
              <button
                type="button"
                aria-pressed={String(webhook.id) === selectedId}
                onClick={() => setQuery({ webhook: String(webhook.id), delivery: null, status: null })}
              >
                Inspect <span class="visually-hidden">{webhook.url}</span>
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EventTypePicker(props: { legend: string; value: string[]; onChange(next: string[]): void }) {
  const eventTypes = useEventTypes();
  return (
    <fieldset class="event-types">
      <legend>{props.legend}</legend>
      {eventTypes === undefined ? <Loading what="Reading the event types" /> : null}
      {eventTypes?.map((type) => (
        <label key={type}>
          <input
            type="checkbox"
            checked={props.value.includes(type)}
            onChange={(event) =>
              props.onChange(
                event.currentTarget.checked
                  ? [...props.value, type]
                  : props.value.filter((other) => other !== type),
              )
            }
          />
          {type}
        </label>
      ))}
    </fieldset>
  );
}

function CreateEndpoint({ onCreated }: { onCreated(webhook: Webhook, secret: string): void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="webhook-create"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const created = await api<{ webhook: Webhook; secret: string }>('POST', WEBHOOKS, {
            // No type chosen: every type, those the catalogue gains later included.
            body: { url: url.trim(), ...(types.length > 0 ? { event_types: types } : {}) },
          });
          setUrl('');
          setTypes([]);
          onCreated(created.webhook, created.secret);
        } catch (failure) {
          setError(errorMessage(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>New endpoint</h2>
      <label for="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        value={url}
        placeholder="https://example.com/hooks/promptops"
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <EventTypePicker legend="Event types (none chosen: all of them)" value={types} onChange={setTypes} />
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
      <button type="submit" disabled={busy}>
        Create endpoint
      </button>
    </form>
  );
}

/** The secret of a create or a rotation: shown here once, gone (from memory too) when closed. */
function SecretDialog({ shown, onClose }: { shown: { url: string; secret: string }; onClose(): void }) {
  return (
    <div class="secret-dialog" role="dialog" aria-modal="false" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>
        The secret of <code>{shown.url}</code>. Copy it now: it is never shown again.
      </p>
      <output class="secret" aria-label="Signing secret">
        {shown.secret}
      </output>
      <button type="button" onClick={onClose}>
        I have copied it
      </button>
    </div>
  );
}

function Endpoint(props: {
  webhook: Webhook;
  onChanged(): void;
  onSecret(secret: string): void;
  onVerify(prefill: VerifyPrefill): void;
}) {
  const { webhook } = props;
  const canEdit = useCanEdit('webhooks');
  const format = useFormatTime();
  const [types, setTypes] = useState(webhook.event_types);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, refresh] = useRefresh();
  const path = `${WEBHOOKS}/${webhook.id}`;

  async function act(run: () => Promise<unknown>, done: string) {
    setError(null);
    setMessage(null);
    try {
      await run();
      setMessage(done);
      props.onChanged();
      refresh();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  return (
    <section class="webhook-endpoint" aria-labelledby="endpoint-title">
      <h2 id="endpoint-title">
        Endpoint <code>{webhook.url}</code>
      </h2>
      <p class="muted">
        Created {format(webhook.created_at)}
        {webhook.previous_secret_expires_at
          ? ` · the previous secret signs too until ${format(webhook.previous_secret_expires_at)}`
          : ''}
      </p>
      {canEdit ? (
        <>
          <div class="webhook-actions">
            <button type="button" onClick={() => act(() => api('POST', `${path}/test`), 'Test event sent.')}>
              Send a test event
            </button>
            <button
              type="button"
              onClick={() =>
                act(
                  () => api('PATCH', path, { body: { is_active: !webhook.is_active } }),
                  webhook.is_active ? 'Endpoint disabled.' : 'Endpoint enabled.',
                )
              }
            >
              {webhook.is_active ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              onClick={() =>
                act(async () => {
                  const rotated = await api<{ secret: string }>('POST', `${path}/rotate-secret`);
                  props.onSecret(rotated.secret);
                }, 'Secret rotated: the previous one keeps signing for 24 hours.')
              }
            >
              Rotate secret
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => {
                if (!confirm(`Delete the endpoint ${webhook.url}?`)) return;
                void act(() => api('DELETE', path), 'Endpoint deleted.').then(() =>
                  setQuery({ webhook: null, delivery: null, status: null }),
                );
              }}
            >
              Delete
            </button>
          </div>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void act(
                () => api('PATCH', path, { body: { event_types: types.length > 0 ? types : null } }),
                'Event types saved.',
              );
            }}
          >
            <EventTypePicker
              legend="Event types (none chosen: all of them)"
              value={types}
              onChange={setTypes}
            />
            <button type="submit">Save event types</button>
          </form>
        </>
      ) : (
        <p>Events: {webhook.event_types.join(', ')}</p>
      )}
      {message ? <p role="status">{message}</p> : null}
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
      <Deliveries webhookId={webhook.id} tick={tick} onVerify={props.onVerify} />
    </section>
  );
}

const STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;

function Deliveries(props: { webhookId: number; tick: number; onVerify(prefill: VerifyPrefill): void }) {
  const { webhookId, tick } = props;
  const [status] = useQueryParam('status');
  const [deliveryId] = useQueryParam('delivery');
  const [page, setPage] = useQueryParam('page', '1');
  const [poll, setPoll] = useState(0);
  const format = useFormatTime();
  const answer = useApi(
    (signal) =>
      api<DeliveryPage>('GET', `${WEBHOOKS}/${webhookId}/deliveries`, {
        signal,
        query: { status, page, per_page: 20 },
      }),
    [webhookId, status, page, tick, poll],
  );
  const deliveries = answer.data?.deliveries ?? [];
  // While an attempt is due, the list follows it.
  const pending = deliveries.some((delivery) => delivery.status === 'pending' && delivery.attempts === 0);
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setPoll((value) => value + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, answer.data]);
  const selected = deliveries.find((delivery) => delivery.id === deliveryId);

  return (
    <section aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">Deliveries</h3>
      <div class="delivery-filters">
        <label for="delivery-status">Status</label>
        <select
          id="delivery-status"
          value={status}
          onChange={(event) => setQuery({ status: event.currentTarget.value, page: null, delivery: null })}
        >
          <option value="">all</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setPoll((value) => value + 1)}>
          Refresh
        </button>
      </div>
      {answer.error ? <ErrorMessage>{answer.error}</ErrorMessage> : null}
      {answer.data && deliveries.length === 0 ? <p class="muted">No deliveries.</p> : null}
      {deliveries.length > 0 ? (
        <table class="delivery-table">
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last code</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id} class={`delivery-${delivery.status}`}>
                <td>{format(delivery.created_at)}</td>
                <td>{delivery.event_type}</td>
                <td>
                  <StatusText delivery={delivery} />
                </td>
                <td>{delivery.attempts}</td>
                <td>{delivery.last_status_code ?? '—'}</td>
                <td>
                  <button
                    type="button"
                    aria-pressed={delivery.id === deliveryId}
                    onClick={() => setQuery({ delivery: delivery.id })}
                  >
                    Inspect <span class="visually-hidden">delivery {delivery.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {answer.data && answer.data.pages > 1 ? (
        <nav class="pager" aria-label="Delivery pages">
          <button
            type="button"
            disabled={answer.data.page <= 1}
            onClick={() => setPage(String(answer.data!.page - 1))}
          >
            Newer
          </button>
          <span>
            Page {answer.data.page} of {answer.data.pages}
          </span>
          <button
            type="button"
            disabled={answer.data.page >= answer.data.pages}
            onClick={() => setPage(String(answer.data!.page + 1))}
          >
            Older
          </button>
        </nav>
      ) : null}
      {selected ? (
        <DeliveryDetails
          webhookId={webhookId}
          delivery={selected}
          onRetried={() => setPoll((value) => value + 1)}
          onVerify={props.onVerify}
        />
      ) : null}
    </section>
  );
}

function StatusText({ delivery }: { delivery: Delivery }) {
  return (
    <span class={`delivery-status ${delivery.status}`}>
      {delivery.status}
      {delivery.status === 'pending' && delivery.last_status_code !== null ? ' (retrying)' : ''}
      {delivery.dead_lettered ? ' (dead-lettered)' : ''}
    </span>
  );
}

function DeliveryDetails(props: {
  webhookId: number;
  delivery: Delivery;
  onRetried(): void;
  onVerify(prefill: VerifyPrefill): void;
}) {
  const { delivery } = props;
  const format = useFormatTime();
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  // Read again whenever the list shows it changed (another attempt, another status).
  const detail = useApi(
    (signal) =>
      api<{ delivery: DeliveryDetail }>(
        'GET',
        `${WEBHOOKS}/${props.webhookId}/deliveries/${encodeURIComponent(delivery.id)}`,
        { signal },
      ),
    [props.webhookId, delivery.id, delivery.attempts, delivery.status],
  );
  return (
    <aside class="delivery-details" aria-labelledby="delivery-title">
      <header>
        <h3 id="delivery-title">Delivery {delivery.id}</h3>
        <button
          type="button"
          aria-label="Close the delivery"
          onClick={() => setQuery({ delivery: null }, 'replace')}
        >
          ×
        </button>
      </header>
      <dl>
        <dt>Event</dt>
        <dd>{delivery.event_type}</dd>
        <dt>Status</dt>
        <dd>
          <StatusText delivery={delivery} />
        </dd>
        <dt>Attempts</dt>
        <dd>{delivery.attempts}</dd>
        <dt>Created</dt>
        <dd>{format(delivery.created_at, 'ms')}</dd>
        <dt>Delivered</dt>
        <dd>{delivery.delivered_at ? format(delivery.delivered_at, 'ms') : '—'}</dd>
        <dt>Next attempt</dt>
        <dd>{delivery.next_attempt_at ? format(delivery.next_attempt_at, 'ms') : '—'}</dd>
        <dt>Last status code</dt>
        <dd>{delivery.last_status_code ?? '—'}</dd>
        <dt>
          <code>webhook-id</code> header
        </dt>
        <dd>
          <code class="webhook-id">{delivery.id}</code>
        </dd>
      </dl>
      <h4>Last answer or error</h4>
      <pre class="response-excerpt">{delivery.last_error ?? '(none)'}</pre>
      {detail.error ? <ErrorMessage>{detail.error}</ErrorMessage> : null}
      {detail.data ? (
        <Attempts
          detail={detail.data.delivery}
          onVerify={(attempt) =>
            props.onVerify({
              body: detail.data!.delivery.body,
              id: attempt.headers['webhook-id'],
              timestamp: attempt.headers['webhook-timestamp'],
              signature: attempt.headers['webhook-signature'],
            })
          }
        />
      ) : (
        <Loading />
      )}
      <EditOnly entity="webhooks">
        <button
          type="button"
          onClick={async () => {
            setError(null);
            setMessage(null);
            try {
              await api(
                'POST',
                `${WEBHOOKS}/${props.webhookId}/deliveries/${encodeURIComponent(delivery.id)}/retry`,
              );
              setMessage('Retry queued.');
              props.onRetried();
            } catch (failure) {
              setError(errorMessage(failure));
            }
          }}
        >
          Retry delivery
        </button>
      </EditOnly>
      {message ? <p role="status">{message}</p> : null}
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </aside>
  );
}

/** The delivery's recorded attempts (the newest 10), each with the signature headers it sent. */
function Attempts(props: { detail: DeliveryDetail; onVerify(attempt: Attempt): void }) {
  const format = useFormatTime();
  const attempts = props.detail.attempt_log;
  if (attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <table class="attempt-table">
      <caption>Attempts (the newest 10 are kept)</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Code</th>
          <th scope="col">Latency</th>
          <th scope="col">Answer or error</th>
          <th scope="col">Signature headers sent</th>
          <th scope="col">Verify</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((attempt, index) => (
          <tr key={attempt.started_at + attempt.headers['webhook-timestamp']}>
            <td>{format(attempt.started_at, 'ms')}</td>
            <td class="attempt-code">{attempt.status_code ?? 'no answer'}</td>
            <td>{formatDuration(attempt.latency_ms)}</td>
            <td>
              <pre class="attempt-excerpt">{attempt.response_excerpt ?? ''}</pre>
            </td>
            <td>
              <dl class="attempt-headers">
                {Object.entries(attempt.headers).map(([name, value]) => (
                  <div key={name}>
                    <dt>{name}</dt>
                    <dd>
                      <code>{value}</code>
                    </dd>
                  </div>
                ))}
              </dl>
            </td>
            <td>
              <button type="button" onClick={() => props.onVerify(attempt)}>
                Verify <span class="visually-hidden">attempt {index + 1}</span>
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function VerifySignature({ prefill }: { prefill: VerifyPrefill | null }) {
  const [deliveryId] = useQueryParam('delivery');
  const secretRef = useRef<HTMLInputElement>(null);
  const [fields, setFields] = useState({
    body: '',
    id: deliveryId,
    timestamp: '',
    signature: '',
    secret: '',
  });
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  // The delivery inspected gives the webhook-id (the delivery id is that header on every attempt).
  useEffect(() => {
    if (deliveryId) setFields((previous) => ({ ...previous, id: deliveryId }));
  }, [deliveryId]);
  // An attempt chosen in the inspector fills in all but the secret, which its owner types.
  useEffect(() => {
    if (!prefill) return;
    setVerdict(null);
    setFields((previous) => ({ ...previous, ...prefill }));
    secretRef.current?.focus();
  }, [prefill]);
  const field = (name: keyof typeof fields, label: string, multiline = false) => {
    const id = `verify-${name}`;
    const onInput = (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
      setVerdict(null);
      setFields((previous) => ({ ...previous, [name]: event.currentTarget.value }));
    };
    return (
      <div class="verify-field">
        <label for={id}>{label}</label>
        {multiline ? (
          <textarea id={id} rows={5} spellcheck={false} value={fields[name]} onInput={onInput} />
        ) : (
          <input
            id={id}
            ref={name === 'secret' ? secretRef : undefined}
            autocomplete="off"
            spellcheck={false}
            value={fields[name]}
            onInput={onInput}
          />
        )}
      </div>
    );
  };
  return (
    <form
      class="verify-signature"
      aria-labelledby="verify-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setVerdict(await verifySignature(fields));
      }}
    >
      <h2 id="verify-title">Verify a signature</h2>
      <p class="muted">
        Computed in this browser (Standard Webhooks, WebCrypto): nothing is sent to the service.
      </p>
      {field('body', 'Body (exactly as received)', true)}
      {field('id', 'webhook-id')}
      {field('timestamp', 'webhook-timestamp')}
      {field('signature', 'webhook-signature')}
      {field('secret', 'Secret (whsec_...)')}
      <button type="submit">Verify</button>
      {verdict ? (
        <p role="status" class={`verdict ${verdict.ok ? 'valid' : 'invalid'}`}>
          {verdict.message}
        </p>
      ) : null}
    </form>
  );
}

import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useCanEdit } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';

const PROVIDERS = ['openai', 'anthropic'] as const;
type Provider = (typeof PROVIDERS)[number];
const PROVIDER_NAMES: Record<Provider, string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

interface ProviderKey {
  provider: Provider;
  api_key_hint: string;
  base_url: string | null;
  created_at: string;
  updated_at: string;
}

interface ModelPrice {
  model: string;
  provider: string | null;
  usd_per_million_tokens: {
    input: number;
    output: number;
    cached_input: number;
    cache_write: number;
    reasoning: number;
  };
  updated_at: string;
}

/** Settings: the workspace's provider keys (write-only) and its model price overrides. */
export default function SettingsScreen() {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Settings</h1>
      <ProviderKeys />
      <ModelPrices />
    </section>
  );
}

/**
 * A key is typed, sent, and forgotten: the field is cleared once the API took it, and the API answers only
 * the key's last four characters.
 */
function ProviderKeys() {
  const [version, setVersion] = useState(0);
  const keys = useApi(
    (signal) => api<{ provider_keys: ProviderKey[] }>('GET', '/api/public/v2/provider-keys', { signal }),
    [version],
  );
  const canEdit = useCanEdit('provider_keys');
  const format = useFormatTime();
  return (
    <section class="settings-part" aria-labelledby="provider-keys-title">
      <h2 id="provider-keys-title">Provider keys</h2>
      <p class="muted">
        Keys are write-only: once saved, only their last four characters are shown. Without one, calls use the
        deployment's key.
      </p>
      {keys.error ? <ErrorMessage>{keys.error}</ErrorMessage> : null}
      {keys.loading && !keys.data ? <Loading what="Loading provider keys" /> : null}
      {keys.data ? (
        <table class="settings-table">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Key</th>
              <th scope="col">Base URL</th>
              <th scope="col">Set</th>
              <th scope="col">Replaced</th>
              {canEdit ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {PROVIDERS.map((provider) => {
              const key = keys.data?.provider_keys.find((k) => k.provider === provider);
              return (
                <ProviderKeyRow
                  key={provider}
                  provider={provider}
                  current={key}
                  canEdit={canEdit}
                  format={format}
                  onChanged={() => setVersion((n) => n + 1)}
                />
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function ProviderKeyRow({
  provider,
  current,
  canEdit,
  format,
  onChanged,
}: {
  provider: Provider;
  current: ProviderKey | undefined;
  canEdit: boolean;
  format: (iso: string) => string;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string>();
  const name = PROVIDER_NAMES[provider];
  const path = `/api/public/v2/provider-keys/${provider}`;
  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const baseUrl = String(data.get('base_url') ?? '').trim();
    try {
      await api('PUT', path, {
        body: { api_key: String(data.get('api_key') ?? ''), base_url: baseUrl || null },
      });
      form.reset();
      setError(undefined);
      setOpen(false);
      onChanged();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the ${name} key?`)) return;
    try {
      await api('DELETE', path);
      setError(undefined);
      onChanged();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  return (
    <>
      <tr>
        <th scope="row">{name}</th>
        <td>{current ? current.api_key_hint : <span class="muted">not set</span>}</td>
        <td>{current?.base_url ?? ''}</td>
        <td>{current ? format(current.created_at) : ''}</td>
        <td>{current ? format(current.updated_at) : ''}</td>
        {canEdit ? (
          <td class="settings-actions">
            <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
              {current ? `Replace ${name} key` : `Set ${name} key`}
            </button>
            {current ? (
              <button type="button" class="danger" onClick={remove}>
                Delete {name} key
              </button>
            ) : null}
          </td>
        ) : null}
      </tr>
      {open || error ? (
        <tr>
          <td colSpan={6}>
            {open ? (
              <form class="settings-form" onSubmit={save}>
                <label>
                  {name} API key
                  <input name="api_key" type="password" required autocomplete="off" spellcheck={false} />
                </label>
                <label>
                  Base URL (optional)
                  <input name="base_url" type="url" defaultValue={current?.base_url ?? ''} />
                </label>
                <button type="submit">Save {name} key</button>
              </form>
            ) : null}
            {error ? <ErrorMessage>{error}</ErrorMessage> : null}
          </td>
        </tr>
      ) : null}
    </>
  );
}

const PRICE_FIELDS = [
  ['input', 'Input', true],
  ['output', 'Output', true],
  ['cached_input', 'Cached input', false],
  ['cache_write', 'Cache write', false],
  ['reasoning', 'Reasoning', false],
] as const;

function ModelPrices() {
  const [version, setVersion] = useState(0);
  const prices = useApi(
    (signal) => api<{ items: ModelPrice[] }>('GET', '/api/public/v2/model-prices', { signal }),
    [version],
  );
  const canEdit = useCanEdit('request_logs');
  const format = useFormatTime();
  const [error, setError] = useState<string>();
  const reload = () => setVersion((n) => n + 1);
  const path = (model: string) => `/api/public/v2/model-prices/${encodeURIComponent(model)}`;
  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const usd: Record<string, number> = {};
    for (const [field] of PRICE_FIELDS) if (text(field) !== '') usd[field] = Number(text(field));
    try {
      await api('PUT', path(text('model')), {
        body: { provider: text('provider') || null, usd_per_million_tokens: usd },
      });
      form.reset();
      setError(undefined);
      reload();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const remove = async (model: string) => {
    if (!confirm(`Delete the price override of ${model}?`)) return;
    try {
      await api('DELETE', path(model));
      setError(undefined);
      reload();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  return (
    <section class="settings-part" aria-labelledby="model-prices-title">
      <h2 id="model-prices-title">Model price overrides</h2>
      <p class="muted">
        USD per million tokens, for logs written after the change (a recompute applies them to stored logs).
      </p>
      {prices.error ? <ErrorMessage>{prices.error}</ErrorMessage> : null}
      {prices.loading && !prices.data ? <Loading what="Loading price overrides" /> : null}
      {prices.data && prices.data.items.length === 0 ? <p class="muted">No overrides.</p> : null}
      {prices.data && prices.data.items.length > 0 ? (
        <table class="settings-table model-prices">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              {PRICE_FIELDS.map(([field, label]) => (
                <th key={field} scope="col">
                  {label}
                </th>
              ))}
              <th scope="col">Changed</th>
              {canEdit ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {prices.data.items.map((price) => (
              <tr key={price.model}>
                <th scope="row">{price.model}</th>
                <td>{price.provider ?? 'any'}</td>
                {PRICE_FIELDS.map(([field]) => (
                  <td key={field}>{price.usd_per_million_tokens[field]}</td>
                ))}
                <td>{format(price.updated_at)}</td>
                {canEdit ? (
                  <td>
                    <button type="button" class="danger" onClick={() => remove(price.model)}>
                      Delete {price.model} price
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {canEdit ? (
        <form class="settings-form price-form" onSubmit={save} aria-labelledby="price-form-title">
          <h3 id="price-form-title">Set a model's price</h3>
          <label>
            Model
            <input name="model" required maxLength={256} spellcheck={false} />
          </label>
          <label>
            Provider (optional)
            <input name="provider" maxLength={64} placeholder="any" />
          </label>
          {PRICE_FIELDS.map(([field, label, required]) => (
            <label key={field}>
              {label} ($ / M tokens{required ? '' : ', optional'})
              <input name={field} type="number" min={0} step="any" required={required} />
            </label>
          ))}
          <button type="submit">Save price</button>
        </form>
      ) : null}
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </section>
  );
}

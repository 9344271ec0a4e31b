import { useState } from 'preact/hooks';
import { ApiError, api, errorMessage } from './api/client.ts';
import { type Me, signInNotice, startSession } from './api/session.ts';
import { useStore } from './lib/store.ts';

/** Checks a key with GET /api/public/v2/me: its description, or an ApiError (401 for a refused key). */
export const describeKey = (key: string) => api<Me>('GET', '/api/public/v2/me', { key });

/** Sign-in: paste an API key; it is checked before the dashboard opens. */
export function SignIn() {
  const notice = useStore(signInNotice);
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return setError('Paste an API key first.');
    setChecking(true);
    setError(null);
    try {
      startSession(trimmed, await describeKey(trimmed), remember);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'This API key was refused: it is unknown or revoked. Check it and paste it again.'
          : `The key could not be checked: ${errorMessage(failure)}`,
      );
    } finally {
      setChecking(false);
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>promptops</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        {notice && <p class="notice">{notice}</p>}
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-invalid={error ? true : undefined}
        />
        <label class="checkbox">
          <input
            type="checkbox"
            checked={remember}
            onChange={(event) => setRemember(event.currentTarget.checked)}
          />
          Remember on this device
        </label>
        <button type="submit" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="muted">
        The key stays in this tab (or on this device if you ask), is sent only to this service, and is
        forgotten at sign-out. <code>npm start</code> prints the local key.
      </p>
    </main>
  );
}

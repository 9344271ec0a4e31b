import { basePath } from '../lib/url-state.ts';
import { endSession, session } from './session.ts';

/**
 * The dashboard's only way to the service: the public API, same origin, with the signed-in key.
 * A 401 anywhere ends the session (back to sign-in); any other failure throws an ApiError carrying the
 * API's own error message.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error body's `error` code, e.g. `not_found`. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface ApiOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** The key to use instead of the session's (sign-in checks a key before there is a session). */
  key?: string;
}

export async function api<T>(method: string, path: string, options: ApiOptions = {}): Promise<T> {
  const key = options.key ?? session.get()?.key;
  const url = new URL(`${basePath()}${path}`, location.origin);
  for (const [name, value] of Object.entries(options.query ?? {}))
    if (value !== null && value !== undefined && value !== '') url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (key) headers['X-API-KEY'] = key;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) return body as T;
  const { message, error } = (body ?? {}) as { message?: unknown; error?: unknown };
  const messageText =
    typeof message === 'string' && message ? message : `${response.status} ${response.statusText}`;
  if (response.status === 401 && !options.key) endSession('Your session ended: sign in again.');
  throw new ApiError(response.status, messageText, typeof error === 'string' ? error : undefined);
}

/** The message to show for a failure of `api` (or anything else thrown). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

import { OutboundError, outboundRequest } from '#shared/platform/outbound-http.ts';

/**
 * A `fetch` on the guarded outbound client, for an SDK (the `openai` client's `fetch` option) calling a
 * URL a workspace supplied: the address filter, no redirects, one timeout and a capped answer apply as
 * for every user URL. (The guard's agent cannot be given to the built-in `fetch`.) Only what an API
 * client needs: string or URL input, a string or byte body, an abort signal.
 */
export interface GuardedFetchOptions {
  timeoutMs: number;
  maxResponseBytes: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    if (!METHODS.has(method)) throw new OutboundError('invalid_url', `method ${method} is not supported`);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = await bodyOf(init?.body);
    const request = outboundRequest({
      url,
      method: method as Method,
      headers,
      body,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
    });
    const answer = await abortable(request, init?.signal ?? undefined);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
    }
    const status = answer.status >= 200 && answer.status <= 599 ? answer.status : 502;
    const nullBody = status === 204 || status === 205 || status === 304;
    return new Response(nullBody ? null : new Uint8Array(answer.body), { status, headers: responseHeaders });
  };
}

async function bodyOf(body: RequestInit['body']): Promise<string | Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Anything else (a stream, a form): read through a Response, as fetch would send it.
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** The request, or an AbortError as soon as the caller's signal fires (the SDK's own timeout). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const abortError = (signal: AbortSignal) =>
  signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted', 'AbortError');

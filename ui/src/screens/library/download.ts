import { ApiError } from '../../api/client.ts';
import { endSession, session } from '../../api/session.ts';
import { basePath } from '../../lib/url-state.ts';

/**
 * Fetches a binary answer of the API (same origin, the session's key) and saves it as a file through a
 * Blob URL and an `a[download]`: nothing of it enters the DOM as markup. `api()` reads JSON only.
 */
export async function downloadFromApi(
  path: string,
  query: Record<string, string>,
  accept: string,
  fileName: string,
) {
  const url = new URL(`${basePath()}${path}`, location.origin);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const key = session.get()?.key;
  const response = await fetch(url, {
    headers: { Accept: accept, ...(key ? { 'X-API-KEY': key } : {}) },
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  if (!response.ok) {
    if (response.status === 401) endSession('Your session ended: sign in again.');
    const body = (await response.json().catch(() => ({}))) as { message?: unknown; error?: unknown };
    throw new ApiError(
      response.status,
      typeof body.message === 'string' ? body.message : `${response.status} ${response.statusText}`,
      typeof body.error === 'string' ? body.error : undefined,
    );
  }
  const blobUrl = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = blobUrl;
  anchor.download = fileName;
  anchor.click();
  setTimeout(() => URL.revokeObjectURL(blobUrl), 10_000);
}

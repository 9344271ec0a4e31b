import { useEffect, useState } from 'preact/hooks';

/**
 * The view lives in the URL: the path names the screen (`/ui/<screen>/...`), query parameters hold
 * filters, time range, sort, page or cursor and selection. Navigations push a history entry (back
 * returns to the previous view); typing replaces the current one (back does not replay keystrokes).
 * Reload and "open in new tab" show the same view.
 */

/** Where the service is mounted: `` locally, `/v1` on API Gateway's default endpoint. */
export function basePath(): string {
  const path = location.pathname;
  const at = path.indexOf('/ui/');
  return at >= 0 ? path.slice(0, at) : path.endsWith('/ui') ? path.slice(0, -3) : '';
}

/** The dashboard path after `/ui/`, e.g. `requests` or `prompts/my-template`. */
export function dashboardPath(): string {
  const path = location.pathname;
  const at = path.indexOf('/ui/');
  return at >= 0 ? decodeURI(path.slice(at + 4)) : '';
}

/** The URL of a dashboard path (`requests?status=ERROR`), under the service's mount point. */
export const dashboardUrl = (path: string): string => `${basePath()}/ui/${path.replace(/^\/+/, '')}`;

const CHANGE = 'promptops:locationchange';

function notify(): void {
  window.dispatchEvent(new Event(CHANGE));
}

/** Goes to a dashboard path (pushState: back returns); `replace` rewrites the current entry instead. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = dashboardUrl(path);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
}

/** Re-renders on every change of the URL (navigate, setQuery, back and forward). */
export function useLocation(): { path: string; search: string } {
  const read = () => ({ path: dashboardPath(), search: location.search });
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const update = () =>
      setCurrent((previous) => {
        const next = read();
        return next.path === previous.path && next.search === previous.search ? previous : next;
      });
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return current;
}

export type QueryChanges = Record<string, string | null | undefined>;

/**
 * Sets query parameters of the current URL (null or '' removes one). `mode: 'push'` (the default) for
 * a navigation (a page, a sort, a selected row, a filter applied), `'replace'` while typing.
 */
export function setQuery(changes: QueryChanges, mode: 'push' | 'replace' = 'push'): void {
  const params = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === '') params.delete(name);
    else params.set(name, value);
  }
  const search = params.toString();
  const url = `${location.pathname}${search ? `?${search}` : ''}`;
  if (url === `${location.pathname}${location.search}`) return;
  if (mode === 'replace') history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
}

/** All query parameters of the current URL (re-renders on change). */
export function useQuery(): URLSearchParams {
  const { search } = useLocation();
  return new URLSearchParams(search);
}

/**
 * One query parameter as state: `[value, set]`, `fallback` when absent. `set(value)` pushes a history
 * entry; `set(value, 'replace')` rewrites the current one (use it for text typed in a field).
 */
export function useQueryParam(
  name: string,
  fallback = '',
): [string, (value: string | null, mode?: 'push' | 'replace') => void] {
  const query = useQuery();
  const value = query.get(name) ?? fallback;
  return [value, (next, mode = 'push') => setQuery({ [name]: next }, mode)];
}

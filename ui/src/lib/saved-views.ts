import { createStore, persisted, useStore } from './store.ts';
import { dashboardPath } from './url-state.ts';

/**
 * Saved views: a name for a dashboard URL (screen, filters, time range, sort...), kept in this browser
 * (localStorage), listed in the header. A view is the path and query after `/ui/`, so it survives a
 * change of host or mount.
 */
export interface SavedView {
  name: string;
  /** The dashboard path and query, e.g. `requests?status=ERROR&range=24h`. */
  path: string;
}

const SETTING = 'promptops.savedViews';
export const MAX_SAVED_VIEWS = 50;

function load(): SavedView[] {
  try {
    const parsed: unknown = JSON.parse(persisted.read(SETTING) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (view): view is SavedView => typeof view?.name === 'string' && typeof view?.path === 'string',
    );
  } catch {
    return [];
  }
}

export const savedViews = createStore<SavedView[]>(load());
export const useSavedViews = (): SavedView[] => useStore(savedViews);

function keep(views: SavedView[]): void {
  persisted.write(SETTING, JSON.stringify(views));
  savedViews.set(views);
}

/** Saves the current view under `name` (replacing a view of that name); the newest first. */
export function saveCurrentView(name: string): void {
  const trimmed = name.trim();
  if (!trimmed) return;
  const view = { name: trimmed, path: `${dashboardPath()}${location.search}` };
  keep([view, ...savedViews.get().filter((other) => other.name !== trimmed)].slice(0, MAX_SAVED_VIEWS));
}

export function deleteView(name: string): void {
  keep(savedViews.get().filter((view) => view.name !== name));
}

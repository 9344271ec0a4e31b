import { createStore, useStore } from '../lib/store.ts';

/**
 * The signed-in key and what `GET /api/public/v2/me` said about it. The key lives in sessionStorage
 * (gone with the tab) unless "remember on this device" put it in localStorage; sign-out clears both.
 */
export type EntityType =
  | 'request_logs'
  | 'prompts'
  | 'datasets'
  | 'workflows'
  | 'reports'
  | 'tools'
  | 'skills'
  | 'folders'
  | 'webhooks'
  | 'provider_keys'
  | 'monitors';

export interface Me {
  workspace: { id: number; name: string | null };
  key: { id: number | null; prefix: string | null };
  user: { id: number; email: string | null };
  permissions: Partial<Record<EntityType, 'read' | 'edit'>>;
}

export interface Session {
  key: string;
  me: Me;
}

const KEY_ITEM = 'promptops.apiKey';

/** null: signed out. `expired` tells the sign-in screen why it is shown again. */
export const session = createStore<Session | null>(null);
export const signInNotice = createStore<string | null>(null);

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_ITEM) ?? localStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
}

/** Whether this key was kept with "remember on this device". */
export function isRemembered(key: string): boolean {
  try {
    return localStorage.getItem(KEY_ITEM) === key;
  } catch {
    return false;
  }
}

export function startSession(key: string, me: Me, remember: boolean): void {
  try {
    sessionStorage.setItem(KEY_ITEM, key);
    if (remember) localStorage.setItem(KEY_ITEM, key);
    else localStorage.removeItem(KEY_ITEM);
  } catch {
    // storage disabled: the session lasts for this page only
  }
  signInNotice.set(null);
  session.set({ key, me });
}

/** Signs out: forgets the key everywhere; `notice` is shown on the sign-in screen. */
export function endSession(notice: string | null = null): void {
  try {
    sessionStorage.removeItem(KEY_ITEM);
    localStorage.removeItem(KEY_ITEM);
  } catch {
    // nothing kept
  }
  signInNotice.set(notice);
  session.set(null);
}

export const useSession = (): Session | null => useStore(session);

/**
 * Whether the signed-in key may edit this entity type: screens hide edit actions when it may not (the
 * API refuses them anyway).
 */
export function useCanEdit(entityType: EntityType): boolean {
  return useSession()?.me.permissions[entityType] === 'edit';
}

import { useEffect } from 'preact/hooks';

/** Whether a key press belongs to a field being typed in (shortcuts leave those alone). */
const typing = (event: KeyboardEvent) =>
  event.target instanceof HTMLElement &&
  (event.target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(event.target.tagName));

/** A single-key shortcut of the screen (`/` search, `Escape` close), off while the user types in a field. */
export function useShortcut(key: string, action: () => void, deps: readonly unknown[]): void {
  // The caller lists what `action` depends on, as with useEffect.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== key || event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, deps);
}

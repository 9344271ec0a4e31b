import { useEffect, useRef } from 'preact/hooks';

/**
 * The dashboard's keys, one hook for every list: `j` / `k` move the selection down / up, `Enter` opens
 * the selected row, `Esc` closes what is open (a detail pane), `/` focuses the screen's search field.
 * Keys typed into a field, or with Ctrl / Alt / Meta, are left alone (Esc still blurs a search field).
 *
 *   useListKeys({ count: rows.length, selected, onSelect: setSelected, onOpen, onClose, searchRef });
 */
export interface ListKeys {
  /** How many rows the list shows now. */
  count: number;
  /** The selected row's index, or -1 for none. */
  selected: number;
  onSelect(index: number): void;
  onOpen?(index: number): void;
  onClose?(): void;
  /** The field `/` focuses. */
  searchRef?: { current: HTMLInputElement | null };
  /** Off while a dialog owns the keyboard. */
  enabled?: boolean;
}

export function useListKeys(keys: ListKeys): void {
  // The listener is added once; it reads the latest options through the ref.
  const latest = useRef(keys);
  latest.current = keys;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      const options = latest.current;
      if (options.enabled === false || event.defaultPrevented) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (isTyping(event.target)) {
        if (event.key === 'Escape' && event.target === options.searchRef?.current)
          options.searchRef.current?.blur();
        return;
      }
      // Enter on a button or link is that control's own action; the other keys still move the list.
      if (event.key === 'Enter' && isControl(event.target)) return;
      const handled = handleKey(event.key, options, (index) => {
        // The next key, even one pressed before the list renders again, moves on from this row.
        latest.current = { ...latest.current, selected: index };
        options.onSelect(index);
      });
      if (handled) event.preventDefault();
    };
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);
}

function handleKey(key: string, options: ListKeys, select: (index: number) => void): boolean {
  const { count, selected } = options;
  switch (key) {
    case 'j':
      if (count === 0) return false;
      select(Math.min(count - 1, selected + 1));
      return true;
    case 'k':
      if (count === 0) return false;
      select(Math.max(0, selected < 0 ? 0 : selected - 1));
      return true;
    case 'Enter':
      if (selected < 0 || selected >= count || !options.onOpen) return false;
      options.onOpen(selected);
      return true;
    case 'Escape':
      if (!options.onClose) return false;
      options.onClose();
      return true;
    case '/':
      if (!options.searchRef?.current) return false;
      options.searchRef.current.focus();
      options.searchRef.current.select();
      return true;
    default:
      return false;
  }
}

/**
 * A single-key shortcut of a screen that has no list (`/` search, `Escape` close), off while the user
 * types in a field. The caller lists what `action` depends on, as with useEffect.
 */
export function useShortcut(key: string, action: () => void, deps: readonly unknown[]): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== key || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target))
        return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, deps);
}

/** Whether a key press goes to a text field. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

function isControl(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && ['BUTTON', 'A', 'SUMMARY'].includes(target.tagName);
}

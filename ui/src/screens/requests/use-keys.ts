import { useEffect, useRef } from 'preact/hooks';

/**
 * Single-key shortcuts of the screen (`j`, `k`, `Enter`, `Escape`, `/`): ignored while the user types in
 * a field (except Escape), or with a modifier held, so they never steal text or browser shortcuts.
 */
export function useKeys(handlers: Record<string, () => void>): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      const typing =
        target !== null &&
        (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (typing && event.key !== 'Escape') return;
      // Enter on a button or link is that control's own action.
      if (event.key === 'Enter' && target !== null && ['BUTTON', 'A', 'SUMMARY'].includes(target.tagName))
        return;
      const handler = current.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

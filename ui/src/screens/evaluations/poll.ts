import { useEffect, useRef } from 'preact/hooks';

/** The first wait between two reads of a running report, how much longer each next wait is, and the longest. */
export const POLL_FIRST_MS = 1000;
const POLL_FACTOR = 1.5;
export const POLL_MAX_MS = 10_000;
/** After a failed read the wait doubles, up to this. */
const POLL_FAILED_MAX_MS = 30_000;

/** The wait before the next read: longer each time (a long run is read less often), longest in a hidden tab. */
export function nextDelay(previous: number, failed: boolean, hidden: boolean): number {
  if (failed) return Math.min(POLL_FAILED_MAX_MS, Math.max(previous, POLL_FIRST_MS) * 2);
  if (hidden) return POLL_MAX_MS;
  return Math.min(POLL_MAX_MS, previous * POLL_FACTOR);
}

/**
 * Calls `read` while `active`, politely: one read at a time, waits growing from 1 s to 10 s (doubling
 * after a failure), aborted when `active` turns false or the component goes. `read` returns whether to
 * go on.
 */
export function usePoll(
  active: boolean,
  read: (signal: AbortSignal) => Promise<boolean>,
  key: unknown,
): void {
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = POLL_FIRST_MS;
    const tick = () => {
      latest.current(controller.signal).then(
        (goOn) => {
          if (controller.signal.aborted || !goOn) return;
          delay = nextDelay(delay, false, document.hidden);
          timer = setTimeout(tick, delay);
        },
        () => {
          if (controller.signal.aborted) return;
          delay = nextDelay(delay, true, document.hidden);
          timer = setTimeout(tick, delay);
        },
      );
    };
    timer = setTimeout(tick, delay);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [active, key]);
}

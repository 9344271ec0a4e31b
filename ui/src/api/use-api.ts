import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from './client.ts';

export interface Loaded<T> {
  data: T | undefined;
  /** The API's error message when the call failed. */
  error: string | undefined;
  loading: boolean;
}

/**
 * Runs `load` when `deps` change (an earlier call still running is aborted, so a slow answer never
 * overwrites a newer one) and re-renders with its result.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, loading: true });
  // The caller lists what `load` depends on, as with useEffect.
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    load(controller.signal).then(
      (data) => controller.signal.aborted || setState({ data, error: undefined, loading: false }),
      (error) =>
        controller.signal.aborted ||
        setState({ data: undefined, error: errorMessage(error), loading: false }),
    );
    return () => controller.abort();
  }, deps);
  return state;
}

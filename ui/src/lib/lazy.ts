import type { ComponentType } from 'preact';

/**
 * A screen's module, imported on first use (esbuild puts each dynamic import in its own chunk) and
 * kept once loaded.
 */
export type ScreenModule = { default: ComponentType };

export function lazyScreen(load: () => Promise<ScreenModule>): () => Promise<ComponentType> {
  let loading: Promise<ComponentType> | undefined;
  return () => {
    loading ??= load().then((module) => module.default);
    // A failed load (a deploy replaced the chunks) is retried on the next visit.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
}

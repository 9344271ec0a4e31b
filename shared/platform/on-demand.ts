/**
 * A module imported on its first use, once per container, for the packages a bundle leaves out and
 * finds beside itself (`ON_DEMAND_PACKAGES` in infra/bundling.ts): a function pays for one only on the
 * calls that need it. A failed import is tried again by the next call.
 */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

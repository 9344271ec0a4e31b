/** Runs `work` on every item with at most `limit` calls in flight; rejects with the first failure. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * A gate that lets at most `limit` calls run at once; the others wait their turn, first come first
 * served. For bounding one step of a pipeline (e.g. provider calls) while the steps around it overlap.
 */
export function limiter(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      // The slot passes straight to the next caller, so `running` never drops below what is in flight.
      if (next) next();
      else running--;
    }
  };
}

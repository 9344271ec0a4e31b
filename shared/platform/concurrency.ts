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

/**
 * Group commit: `write` takes the entries of one key together. The first call of a quiet key goes at
 * once; calls that arrive while a write of their key is in flight wait for it, then go in one write
 * (at most `max` entries each). `write` answers one result per entry, in order; its failure fails the
 * calls it carried.
 */
export function groupCommit<T, R>(
  max: number,
  write: (entries: T[]) => Promise<R[]>,
): (key: string, entry: T) => Promise<R> {
  type Call = { entry: T; resolve(result: R): void; reject(error: unknown): void };
  // A key is present while a write of it is in flight, with the calls that wait for the next one.
  const waiting = new Map<string, Call[]>();
  const run = async (key: string, calls: Call[]) => {
    try {
      const results = await write(calls.map((call) => call.entry));
      for (const [i, call] of calls.entries()) call.resolve(results[i]!);
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
    const next = waiting.get(key)!;
    if (next.length === 0) waiting.delete(key);
    else void run(key, next.splice(0, max));
  };
  return (key, entry) =>
    new Promise<R>((resolve, reject) => {
      const queue = waiting.get(key);
      if (queue) return void queue.push({ entry, resolve, reject });
      waiting.set(key, []);
      void run(key, [{ entry, resolve, reject }]);
    });
}

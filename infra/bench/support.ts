import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inChangeConsumer } from '../local/change-feed.ts';

/** Shared pieces of `npm run bench`: result rows, percentiles and a DynamoDB call counter. */
export interface BenchRow {
  name: string;
  value: string;
  target: string;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Counts the commands a document client sends, by DynamoDB operation (PutItemCommand, QueryCommand, ...).
 * Each counted command is one DynamoDB round trip (retries aside). The change consumers' calls are
 * left out: in AWS they are another Lambda's, after the request.
 */
export function countDynamoCalls(client: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (inChangeConsumer()) return next(args);
      const name = String(context.commandName ?? 'unknown');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `benchCallCounter${Math.random()}` },
  );
  return {
    reset: () => counts.clear(),
    total: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
    get: (name: string) => counts.get(name) ?? 0,
    snapshot: () => Object.fromEntries(counts),
  };
}

/**
 * Counts the items DynamoDB reads for a document client's calls (what read capacity is charged on):
 * a Query's or Scan's ScannedCount, the items a GetItem or BatchGetItem found.
 */
export function countDynamoItemsRead(client: DynamoDBDocumentClient) {
  const counter = { items: 0, reset: () => Object.assign(counter, { items: 0 }) };
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (inChangeConsumer()) return result;
      const output = result.output as {
        ScannedCount?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]>;
      };
      if (output.ScannedCount !== undefined) counter.items += output.ScannedCount;
      else if (output.Item) counter.items += 1;
      else if (output.Responses) {
        for (const items of Object.values(output.Responses)) counter.items += items.length;
      }
      return result;
    },
    { step: 'initialize', name: `benchItemsReadCounter${Math.random()}` },
  );
  return counter;
}

/**
 * Counts a document client's calls, and waves: a wave starts whenever a call starts while none is in
 * flight, so waves are the sequential round trips of an operation.
 */
export function countDynamoWaves(client: DynamoDBDocumentClient) {
  const counter = { calls: 0, waves: 0, reset: () => Object.assign(counter, { calls: 0, waves: 0 }) };
  let inFlight = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      if (inChangeConsumer()) return next(args);
      counter.calls++;
      if (inFlight++ === 0) counter.waves++;
      try {
        return await next(args);
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name: `benchWaveCounter${Math.random()}` },
  );
  return counter;
}

/**
 * The V8 heap Node 24 picks by itself in a container of that many MB, as Lambda gives it (measured in
 * a memory cgroup of that size: `v8.getHeapStatistics().heap_size_limit` is 259 MB in 512 MB = old
 * space 256 MB + three 1 MB semi-spaces, 560 MB in 1,024 MB = 512 MB + three 16 MB), as flags that give
 * the same heap on any machine: a worker's peak RSS is measured with the heap it has in AWS.
 */
const CONTAINER_HEAPS: Record<number, string[]> = {
  512: ['--max-old-space-size=256', '--max-semi-space-size=1'],
  1024: ['--max-old-space-size=512', '--max-semi-space-size=16'],
};

export function containerHeapFlags(memoryMb: number): string[] {
  const flags = CONTAINER_HEAPS[memoryMb];
  if (!flags) throw new Error(`No V8 heap sizing known for a ${memoryMb} MB container (CONTAINER_HEAPS)`);
  return flags;
}

/**
 * CPU time used so far, in ms: this process's (user + system), and its child processes' (the embedded
 * DynamoDB, which runs apart), read from /proc (0 where there is none). Unlike wall time, a figure
 * that the machine's load barely moves.
 */
export function cpuMs(): { own: number; children: number } {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const pids = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/);
    for (const pid of pids.filter(Boolean)) {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      children += ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * CLOCK_TICK_MS;
    }
  } catch {
    // No /proc (not Linux): the children's share is left out.
  }
  return { own: (own.user + own.system) / 1000, children };
}
/** Linux's USER_HZ is 100 on every architecture Node runs on. */
const CLOCK_TICK_MS = 10;

export const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

// biome-ignore lint/suspicious/noExplicitAny: answers of several routes, read field by field by callers.
export type Call = (method: string, path: string, body?: unknown) => Promise<any>;

/** Calls the local gateway with the bench's API key; an answer of 300 or more throws. */
export function apiClient(baseUrl: string, apiKey: string): Call {
  return async (method, path, body) => {
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
}

/**
 * Runs a bench module's child part in a fresh process, as a new Lambda would run it (so its peak RSS is
 * its own): the module (`moduleUrl`, its `import.meta.url`) started again with `flag`, sent `task`, and
 * its one answer returned. The module calls serveBenchChild with the same flag.
 */
export function runBenchChild<T, R>(
  moduleUrl: string,
  flag: string,
  task: T,
  execArgv: readonly string[] = [],
): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(moduleUrl), [flag], {
      execArgv: ['--import', 'tsx', ...execArgv],
      env: process.env,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('message', (result) => resolve(result as R));
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
    child.send(task as object);
  });
}

/** In a process runBenchChild started with `flag`: answers the parent's one task with `main`'s result. */
export function serveBenchChild<T, R>(flag: string, main: (task: T) => Promise<R>): void {
  if (!process.argv.includes(flag)) return;
  process.once('message', (task) => {
    main(task as T).then(
      (result) => process.send?.(result as object, () => process.exit(0)),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

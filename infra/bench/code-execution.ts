/**
 * CODE_EXECUTION's sandbox (QuickJS in a worker thread): a warm run of a small function, the cold
 * start of a fresh thread (spawn, QuickJS load, first run), and the recovery after a run is killed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SANDBOX_WORKER_BUNDLE, SandboxHost } from '#shared/sandbox/host.ts';
import { createSandbox } from '#shared/sandbox/sandbox.ts';
import { sandboxAssetCommands } from '../bundling.ts';
import { REPO_ROOT } from '../local/service.ts';
import { type BenchRow, fmt, percentile } from './support.ts';

const SMALL = {
  code: 'return data.items.filter((item) => item.score > 0.5).map((item) => item.name)',
  data: { items: Array.from({ length: 20 }, (_, i) => ({ name: `item-${i}`, score: (i % 10) / 10 })) },
  timeoutMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
};

async function timed<T>(call: () => Promise<T>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** Runs the worker thread as Lambda does: its bundle, with the `.wasm` beside it. */
function bundledWorker(): URL {
  const dir = join(REPO_ROOT, '.bench', 'code-execution');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const command of sandboxAssetCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT });
  return pathToFileURL(join(dir, SANDBOX_WORKER_BUNDLE));
}

export async function benchCodeExecution(): Promise<BenchRow[]> {
  const workerUrl = bundledWorker();
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const sandbox = createSandbox(new SandboxHost({ maxWorkers: 1, workerUrl }));
    cold.push(await timed(() => sandbox.runJavaScript(SMALL)));
    await sandbox.close();
  }

  // The floor under a cold start: a thread that does nothing (the machine's own cost of a thread).
  const empty: number[] = [];
  for (let i = 0; i < 5; i++) {
    empty.push(
      await timed(async () => {
        const worker = new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true });
        await new Promise((resolve) => worker.once('message', resolve));
        await worker.terminate();
      }),
    );
  }

  const sandbox = createSandbox(new SandboxHost({ maxWorkers: 1, workerUrl }));
  for (let i = 0; i < 20; i++) await sandbox.runJavaScript(SMALL);
  const warm: number[] = [];
  for (let i = 0; i < 200; i++) warm.push(await timed(() => sandbox.runJavaScript(SMALL)));
  const regex: number[] = [];
  const run = {
    pattern: '\\b\\w+@\\w+\\.com\\b',
    flags: 'g',
    input: 'write to a@b.com or c@d.com',
    timeoutMs: 1_000,
  };
  for (let i = 0; i < 100; i++)
    regex.push(await timed(() => sandbox.runRegex({ ...run, mode: 'match_all' })));
  const recovery: number[] = [];
  for (let i = 0; i < 3; i++) {
    await sandbox.runJavaScript({ ...SMALL, code: 'while (true) {}', timeoutMs: 50 });
    recovery.push(await timed(() => sandbox.runJavaScript(SMALL)));
  }
  await sandbox.close();

  return [
    {
      name: 'code-execution warm run (small function)',
      value: `p50 ${fmt(percentile(warm, 50))} ms, p95 ${fmt(percentile(warm, 95))} ms`,
      target: 'p50 < 20 ms',
    },
    {
      name: 'code-execution cold start (bundled thread, QuickJS load, run)',
      value: `median ${fmt(percentile(cold, 50), 0)} ms (an empty thread: ${fmt(percentile(empty, 50), 0)} ms)`,
      target: '',
    },
    {
      name: 'code-execution first run after a kill',
      value: `median ${fmt(percentile(recovery, 50), 0)} ms`,
      target: '',
    },
    {
      name: 'code-execution regex match_all (warm)',
      value: `p50 ${fmt(percentile(regex, 50))} ms`,
      target: '',
    },
  ];
}

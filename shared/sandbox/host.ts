import { Worker } from 'node:worker_threads';
import { MIB, SANDBOX_LIMITS } from './limits.ts';
import type { WorkerMessage, WorkerOutcome, WorkerRequest } from './protocol.ts';

/** The worker thread's bundle, next to a function's bundle (`index.mjs`) in its Lambda asset. */
export const SANDBOX_WORKER_BUNDLE = 'sandbox-worker.mjs';
/** The worker thread's source, bundled into SANDBOX_WORKER_BUNDLE (relative to the repository root). */
export const SANDBOX_WORKER_SOURCE = 'shared/sandbox/worker.ts';

/**
 * Where the worker thread's script is: beside this module in the sources (`worker.ts`, run by Node with
 * its types stripped), or beside the function's bundle once bundled (this module is then part of
 * `index.mjs`, and the bundling step put `sandbox-worker.mjs` and the QuickJS `.wasm` next to it).
 */
export function defaultWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./worker.ts', import.meta.url)
    : new URL(`./${SANDBOX_WORKER_BUNDLE}`, import.meta.url);
}

export type HostRequest = DistributiveOmit<WorkerRequest, 'id'>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export interface SandboxHostOptions {
  /** Worker threads run at once; runs beyond wait their turn (first come, first served). Default 2. */
  maxWorkers?: number;
  /**
   * Threads one owner (a workspace) may use at once; its runs beyond wait while other owners' runs are
   * served. Default: every thread. A process that runs several workspaces' code (the local runtime)
   * sets it below `maxWorkers`, so that one workspace's slow code never holds every thread.
   */
  maxPerOwner?: number;
  workerUrl?: URL;
  hardKillMarginMs?: number;
}

interface Slot {
  worker: Worker;
  /** Resolves once QuickJS is loaded in the thread; rejects if the thread could not start. */
  ready: Promise<void>;
  /** Last lines the thread's console printed (an aborting WebAssembly module prints there), for diagnostics. */
  output: string;
  dead: boolean;
}

/**
 * Runs sandbox requests on a small pool of worker threads. A thread is started on first use and kept
 * warm (one per Lambda container: a container handles one invocation at a time, so only one is ever
 * started there); up to `maxWorkers` run at once in a process that runs several nodes concurrently (the
 * local runtime). Each run has a hard timer of its time limit plus a margin: when it fires, the thread
 * is terminated and the run answers a timeout. A thread that reports its engine poisoned, dies or
 * errs is terminated too, and a fresh one is started for the next run that needs it.
 */
export class SandboxHost {
  private readonly maxWorkers: number;
  private readonly workerUrl: URL;
  private readonly hardKillMarginMs: number;
  private readonly idle: Slot[] = [];
  private readonly slots = new Set<Slot>();
  private readonly maxPerOwner: number;
  /** Runs waiting for a thread, oldest first; each is served once its owner is under its cap. */
  private readonly waiting: { owner: string; take: (slot: Slot) => void }[] = [];
  private readonly inUse = new Map<string, number>();
  private nextId = 1;

  constructor(options: SandboxHostOptions = {}) {
    this.maxWorkers = Math.max(1, options.maxWorkers ?? 2);
    this.maxPerOwner = Math.min(this.maxWorkers, Math.max(1, options.maxPerOwner ?? this.maxWorkers));
    this.workerUrl = options.workerUrl ?? defaultWorkerUrl();
    this.hardKillMarginMs = options.hardKillMarginMs ?? SANDBOX_LIMITS.hardKillMarginMs;
  }

  /**
   * Runs one request. Answers the run's outcome (a value, or a timeout / memory / error the user's code
   * caused); throws only when the sandbox itself cannot run (the worker script or the `.wasm` file is
   * missing, a thread does not start), which is the service's fault, not the user's.
   */
  async run(request: HostRequest, owner = ''): Promise<WorkerOutcome> {
    const slot = await this.acquire(owner);
    try {
      await slot.ready;
    } catch (error) {
      this.discard(slot);
      this.release(slot, owner);
      throw error;
    }
    try {
      return await this.runOn(slot, { ...request, id: this.nextId++ } as WorkerRequest);
    } finally {
      this.release(slot, owner);
    }
  }

  /** Terminates every thread (tests, the bench); the next run starts a fresh one. */
  async close(): Promise<void> {
    const slots = [...this.slots];
    for (const slot of slots) this.discard(slot);
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
  }

  /** Threads alive now (tests). */
  get workers(): number {
    return this.slots.size;
  }

  private runOn(slot: Slot, request: WorkerRequest): Promise<WorkerOutcome> {
    const { worker } = slot;
    worker.ref();
    return new Promise<WorkerOutcome>((resolve) => {
      const finish = (outcome: WorkerOutcome, kill: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (kill) this.discard(slot);
        else worker.unref();
        resolve(outcome);
      };
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'result' && message.id === request.id) finish(message.outcome, message.poisoned);
      };
      const onError = (error: Error & { code?: string }) => {
        finish(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? {
                ok: false,
                reason: 'memory',
                error: `memory limit exceeded (${megabytes(request.memoryBytes)})`,
              }
            : { ok: false, reason: 'error', error: `the sandbox failed: ${error.message}` },
          true,
        );
      };
      const onExit = (code: number) => {
        const detail = slot.output.trim().split('\n').pop();
        finish(
          {
            ok: false,
            reason: 'error',
            error: `the sandbox failed: its thread exited (code ${code}${detail ? `: ${detail.slice(0, 200)}` : ''})`,
          },
          true,
        );
      };
      const timer = setTimeout(
        () =>
          finish({ ok: false, reason: 'timeout', error: `timed out after ${request.timeoutMs} ms` }, true),
        request.timeoutMs + this.hardKillMarginMs,
      );
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage(request);
    });
  }

  private acquire(owner: string): Promise<Slot> {
    if ((this.inUse.get(owner) ?? 0) < this.maxPerOwner) {
      const slot = this.idle.pop() ?? (this.slots.size < this.maxWorkers ? this.spawn() : undefined);
      if (slot) {
        this.take(owner);
        return Promise.resolve(slot);
      }
    }
    return new Promise((take) => this.waiting.push({ owner, take }));
  }

  private release(slot: Slot, owner: string): void {
    this.inUse.set(owner, (this.inUse.get(owner) ?? 1) - 1);
    if (this.inUse.get(owner) === 0) this.inUse.delete(owner);
    // The oldest waiting run whose owner is under its cap takes this thread (a fresh one if this one
    // was discarded); another owner's run is served before a capped owner's older ones.
    const next = this.waiting.findIndex(
      ({ owner: waiting }) => (this.inUse.get(waiting) ?? 0) < this.maxPerOwner,
    );
    if (next === -1) {
      if (!slot.dead) this.idle.push(slot);
      return;
    }
    const [{ owner: nextOwner, take }] = this.waiting.splice(next, 1) as [(typeof this.waiting)[number]];
    this.take(nextOwner);
    take(slot.dead ? this.spawn() : slot);
  }

  private take(owner: string): void {
    this.inUse.set(owner, (this.inUse.get(owner) ?? 0) + 1);
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerUrl, {
      resourceLimits: {
        maxOldGenerationSizeMb: SANDBOX_LIMITS.workerHeapMb,
        maxYoungGenerationSizeMb: 16,
        stackSizeMb: SANDBOX_LIMITS.workerStackMb,
      },
      name: 'promptops-sandbox',
      // Not the parent's flags (a TypeScript loader, a debugger): the thread runs plain JavaScript, or
      // TypeScript that Node strips itself.
      execArgv: [],
    });
    const slot: Slot = { worker, ready: Promise.resolve(), output: '', dead: false };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'log') slot.output = `${slot.output}${message.text}\n`.slice(-2_000);
    });
    slot.ready = new Promise<void>((resolve, reject) => {
      const failed = (reason: string) => {
        clearTimeout(timer);
        worker.off('message', onReady);
        reject(new Error(`The sandbox worker thread did not start (${this.workerUrl.pathname}): ${reason}`));
      };
      const onReady = (message: WorkerMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        worker.off('error', onStartError);
        worker.off('exit', onStartExit);
        worker.off('message', onReady);
        resolve();
      };
      const onStartError = (error: Error) => failed(error.message);
      const onStartExit = (code: number) =>
        failed(`exited with code ${code}: ${slot.output.trim().slice(-300)}`);
      const timer = setTimeout(() => failed('timed out'), SANDBOX_LIMITS.startTimeoutMs);
      timer.unref();
      worker.on('message', onReady);
      worker.once('error', onStartError);
      worker.once('exit', onStartExit);
    });
    // A rejection is handled by the run that awaits `ready`; this one only avoids an unhandled warning.
    slot.ready.catch(() => undefined);
    worker.on('exit', () => {
      slot.dead = true;
      this.forget(slot);
    });
    this.slots.add(slot);
    return slot;
  }

  private discard(slot: Slot): void {
    if (!slot.dead) {
      slot.dead = true;
      void slot.worker.terminate().catch(() => undefined);
    }
    this.forget(slot);
  }

  private forget(slot: Slot): void {
    this.slots.delete(slot);
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
  }
}

/** The memory a run may use: what the caller asks, within (0, 64 MB]. */
export const clampMemory = (bytes: number | undefined): number =>
  Number.isFinite(bytes) && (bytes as number) > 0
    ? Math.min(Math.floor(bytes as number), SANDBOX_LIMITS.memoryBytes)
    : SANDBOX_LIMITS.memoryBytes;

/** The time a run may take: what the caller asks, within [1 ms, 60 s]; 5 s when not a number. */
export const clampTimeout = (ms: number | undefined): number =>
  Number.isFinite(ms)
    ? Math.min(Math.max(1, Math.floor(ms as number)), SANDBOX_LIMITS.maxTimeoutMs)
    : SANDBOX_LIMITS.defaultTimeoutMs;

export const megabytes = (bytes: number): string => `${Math.round((bytes / MIB) * 10) / 10} MB`;

/** Messages between the sandbox host (host.ts) and its worker thread (worker.ts). */

export type WorkerRequest =
  | {
      id: number;
      kind: 'javascript';
      code: string;
      /** `data` as JSON. */
      input: string;
      /** What the code sees as `process.env`, as JSON (an object of strings). */
      env: string;
      /** The name the code's one parameter has: `data` (nodes, columns) or `args` (tool bodies). */
      parameter: 'data' | 'args';
      /** Keep what `console` prints (stdout: log, info, debug; stderr: warn, error, trace). */
      captureOutput: boolean;
      timeoutMs: number;
      memoryBytes: number;
    }
  | {
      id: number;
      kind: 'regex';
      pattern: string;
      flags: string;
      input: string;
      mode: 'test' | 'match_all';
      timeoutMs: number;
      memoryBytes: number;
    };

/** What a run's `console` printed, when it was asked for (each stream cut at SANDBOX_LIMITS.maxOutputChars). */
export interface ConsoleOutput {
  stdout: string;
  stderr: string;
}

/** The outcome of one run: the value as JSON text, or why it failed. */
export type WorkerOutcome = (
  | { ok: true; json: string }
  | { ok: false; reason: 'timeout' | 'memory' | 'error'; error: string }
) & { output?: ConsoleOutput };

export type WorkerMessage =
  | { type: 'ready' }
  /** What the thread's console printed (an aborting WebAssembly module prints there): diagnostics. */
  | { type: 'log'; text: string }
  | {
      type: 'result';
      id: number;
      outcome: WorkerOutcome;
      /**
       * QuickJS hit an engine-level limit (time, memory, stack) or failed underneath the script: the
       * worker's WebAssembly module is not trusted any more, and the host replaces the thread.
       */
      poisoned: boolean;
    };

/** Messages between the sandbox host (host.ts) and its worker thread (worker.ts). */

export type WorkerRequest =
  | {
      id: number;
      kind: 'javascript';
      code: string;
      /** `data` as JSON. */
      input: string;
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

/** The outcome of one run: the value as JSON text, or why it failed. */
export type WorkerOutcome =
  | { ok: true; json: string }
  | { ok: false; reason: 'timeout' | 'memory' | 'error'; error: string };

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

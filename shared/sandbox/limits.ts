/**
 * The sandbox's limits, in one place: the host (which clamps what callers ask for), the worker thread
 * (which applies them inside QuickJS) and the docs (docs/code-execution.md) use these.
 */
export const SANDBOX_LIMITS = {
  /** Time limit of a run when the caller gives none. */
  defaultTimeoutMs: 5_000,
  /** No run is given more than this, whatever the caller asks. */
  maxTimeoutMs: 60_000,
  /** QuickJS heap of one run (and the most a caller may ask for). */
  memoryBytes: 64 * 1024 * 1024,
  /**
   * The WebAssembly memory of a worker thread's QuickJS, a hard cap: the run's heap, the copies of the
   * input and output JSON, and room for what QuickJS's own count misses.
   */
  wasmMemoryBytes: 128 * 1024 * 1024,
  /**
   * The worker thread's own V8 heap (`resourceLimits`): the JSON going in and out passes through it;
   * the QuickJS heap is WebAssembly memory, outside it.
   */
  workerHeapMb: 64,
  /**
   * QuickJS's own stack bound: deep recursion fails as a RangeError before the thread's native stack
   * (`workerStackMb`) runs out.
   */
  quickjsStackBytes: 512 * 1024,
  workerStackMb: 8,
  /** The JSON of `data` handed to a run. */
  maxInputBytes: 8 * 1024 * 1024,
  /** The JSON of the value a run returns (UTF-8 bytes): more is an error, never a cut. */
  maxOutputBytes: 1024 * 1024,
  /**
   * How deeply the returned value's arrays and objects may nest: what stores and reads it later walks it
   * recursively, and a value thousands of levels deep would overflow their stack.
   */
  maxOutputDepth: 128,
  /** What a run's `console` prints, per stream, when it is kept (test-execute): the rest is cut. */
  maxOutputChars: 64 * 1024,
  /** A regular expression's pattern, in characters. */
  maxPatternLength: 4_096,
  /** The text a regular expression runs on, in characters. */
  maxRegexInputLength: 1024 * 1024,
  /**
   * After the time limit, QuickJS's interrupt handler stops the run; if it has not answered this much
   * later (a long native operation, such as building a huge string, is not interruptible), the worker
   * thread is terminated.
   */
  hardKillMarginMs: 500,
  /** A worker thread that has not loaded QuickJS after this long is given up (an internal error). */
  startTimeoutMs: 15_000,
} as const;

export const MIB = 1024 * 1024;

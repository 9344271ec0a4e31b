/**
 * CONTRACT STUB (issue 9): implemented by the sandbox part. User JavaScript (and user regular
 * expressions) run in QuickJS (WASM) inside a worker thread that a hard timer kills and respawns:
 * no `process`, `require`, network or timers; JSON in, JSON out.
 */
export type SandboxResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'timeout' | 'memory' | 'error'; error: string };

export interface CodeRun {
  /** A function body: it sees `data` and `return`s a JSON value. */
  code: string;
  data: unknown;
  timeoutMs: number;
  memoryBytes: number;
}

export interface RegexRun {
  pattern: string;
  flags: string;
  input: string;
  /** `test`: a boolean; `match_all`: every match (an array of strings). */
  mode: 'test' | 'match_all';
  timeoutMs: number;
}

export interface SandboxPort {
  runJavaScript(run: CodeRun): Promise<SandboxResult>;
  runRegex(run: RegexRun): Promise<SandboxResult>;
}

export const sandboxPort: SandboxPort = {
  async runJavaScript() {
    throw new Error('not implemented');
  },
  async runRegex() {
    throw new Error('not implemented');
  },
};

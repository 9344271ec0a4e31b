/**
 * The sandbox: user JavaScript (and user regular expressions) run in QuickJS (WebAssembly) inside a
 * worker thread that a hard timer kills and respawns (host.ts, worker.ts): no `require`, network,
 * timers or host `process` (a stand-in holds the given `env` only); JSON in, JSON out. Limits are in limits.ts; docs/code-execution.md tells users.
 */
import { clampMemory, clampTimeout, type HostRequest, megabytes, SandboxHost } from './host.ts';
import { SANDBOX_LIMITS } from './limits.ts';
import type { ConsoleOutput } from './protocol.ts';

export type SandboxResult = (
  | { ok: true; value: unknown }
  | { ok: false; reason: 'timeout' | 'memory' | 'error'; error: string }
) & {
  /** What the code's `console` printed, when the run asked for it (`captureOutput`). */
  output?: ConsoleOutput;
};

export interface CodeRun {
  /** Whose code it is: a workspace's runs beyond its share of threads wait behind other workspaces'. */
  workspaceId?: number;
  /** A function body: it sees `data` (or `args`, see `parameter`) and `return`s a JSON value. */
  code: string;
  data: unknown;
  /** The code's `process.env`: the workspace's environment variables (none when absent). */
  env?: Readonly<Record<string, string>>;
  /** The name of the code's parameter: `data` (default; nodes, columns) or `args` (a tool's body). */
  parameter?: 'data' | 'args';
  /** Keep what the code's `console` prints (test-execute); otherwise `console` prints nothing. */
  captureOutput?: boolean;
  timeoutMs: number;
  memoryBytes: number;
}

export interface RegexRun {
  workspaceId?: number;
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

let guard: (() => void) | undefined;

/**
 * Installs the check every run passes first: the local runtime's (infra/local/grants.ts), which
 * refuses the sandbox to a function whose row does not say `sandbox: true`, whose Lambda asset would
 * not carry the sandbox's files. Throws, as a missing file would in AWS.
 */
export function setSandboxGuard(check: (() => void) | undefined): void {
  guard = check;
}

/**
 * A sandbox over its own pool of worker threads. Answers `{ok: false}` for what the user's code or
 * pattern caused (an exception, a limit); throws only when the sandbox cannot run at all.
 */
export function createSandbox(
  host: SandboxHost = new SandboxHost(),
): SandboxPort & { close(): Promise<void> } {
  const run = async (request: HostRequest, workspaceId: number | undefined): Promise<SandboxResult> => {
    const outcome = await host.run(request, workspaceId === undefined ? '' : String(workspaceId));
    if (!outcome.ok) return outcome;
    const output = outcome.output ? { output: outcome.output } : {};
    try {
      return { ok: true, value: JSON.parse(outcome.json), ...output };
    } catch {
      // Only code that replaced JSON.stringify or Promise.prototype.then for the driver gets here.
      return { ok: false, reason: 'error', error: 'the returned value is not JSON', ...output };
    }
  };
  return {
    async runJavaScript({ workspaceId, code, data, env, parameter, captureOutput, timeoutMs, memoryBytes }) {
      guard?.();
      let input: string;
      try {
        input = JSON.stringify(data ?? null);
      } catch (error) {
        return {
          ok: false,
          reason: 'error',
          error: `the input data is not JSON: ${(error as Error).message}`,
        };
      }
      const bytes = Buffer.byteLength(input);
      if (bytes > SANDBOX_LIMITS.maxInputBytes) {
        return {
          ok: false,
          reason: 'error',
          error: `the input data is too large: ${megabytes(bytes)} of JSON, the limit is ${megabytes(SANDBOX_LIMITS.maxInputBytes)}`,
        };
      }
      return run(
        {
          kind: 'javascript',
          code,
          input,
          env: JSON.stringify(env ?? {}),
          parameter: parameter ?? 'data',
          captureOutput: captureOutput ?? false,
          timeoutMs: clampTimeout(timeoutMs),
          memoryBytes: clampMemory(memoryBytes),
        },
        workspaceId,
      );
    },
    async runRegex({ workspaceId, pattern, flags, input, mode, timeoutMs }) {
      guard?.();
      if (pattern.length > SANDBOX_LIMITS.maxPatternLength) {
        return {
          ok: false,
          reason: 'error',
          error: `the regular expression is too long: ${pattern.length} characters, the limit is ${SANDBOX_LIMITS.maxPatternLength}`,
        };
      }
      if (input.length > SANDBOX_LIMITS.maxRegexInputLength) {
        return {
          ok: false,
          reason: 'error',
          error: `the text is too long for a regular expression: ${input.length} characters, the limit is ${SANDBOX_LIMITS.maxRegexInputLength}`,
        };
      }
      return run(
        {
          kind: 'regex',
          pattern,
          flags,
          input,
          mode,
          timeoutMs: clampTimeout(timeoutMs),
          memoryBytes: SANDBOX_LIMITS.memoryBytes,
        },
        workspaceId,
      );
    },
    close: () => host.close(),
  };
}

/** Lambda gives a function a full vCPU at this much memory (its CPU share grows with its memory). */
const LAMBDA_MB_PER_VCPU = 1769;

/**
 * Threads of the process's sandbox. In a Lambda container (its memory in the environment), one per vCPU
 * its memory buys, at least one: QuickJS runs are CPU-bound, so a second thread on a fraction of a vCPU
 * runs nothing sooner and holds its own isolate and WebAssembly memory (tens of MB) for nothing, when
 * a worker overlaps runs (the report row worker runs several rows at once); a container serves one
 * invocation at a time, so workspaces share Lambda's concurrency, not these threads. Elsewhere (the
 * local runtime runs every function, for every workspace, in one process) 3 threads, of which one
 * workspace uses at most 2: another workspace's code never waits behind one workspace's slow code.
 */
export function sandboxThreads(env: NodeJS.ProcessEnv = process.env): {
  maxWorkers: number;
  maxPerOwner: number;
} {
  const lambdaMb = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  if (!lambdaMb) return { maxWorkers: 3, maxPerOwner: 2 };
  const threads = Math.min(2, Math.max(1, Math.floor(lambdaMb / LAMBDA_MB_PER_VCPU)));
  return { maxWorkers: threads, maxPerOwner: threads };
}

const processSandbox = createSandbox(new SandboxHost(sandboxThreads()));

/** The process's sandbox: one warm worker thread (more only when runs overlap), started on first use. */
export const sandboxPort: SandboxPort = processSandbox;

/** Terminates the process's sandbox threads (tests, the bench); the next run starts a fresh one. */
export const closeSandbox = (): Promise<void> => processSandbox.close();

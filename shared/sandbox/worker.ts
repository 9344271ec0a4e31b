/**
 * The sandbox's worker thread: loads QuickJS (WebAssembly) once, then runs each request in a fresh
 * QuickJS runtime with a memory limit, a stack bound and an interrupt deadline. The host (host.ts) owns
 * the hard timer and terminates this thread when a run overstays or when this thread reports that the
 * engine is no longer to be trusted (`poisoned`: after a time, memory or stack limit, disposing a
 * QuickJS runtime can abort the whole WebAssembly module, a known upstream bug).
 *
 * Nothing of the host is exposed to user code: no host function is installed in the context, and the
 * QuickJS build has no `std`/`os` modules, so there is no `require`, `fetch`, timers or I/O; `process` is
 * a plain object the prefix makes, holding the `env` the caller gave as JSON.
 *
 * Run from the sources (Node strips the types: only erasable TypeScript here) or bundled next to the
 * function's bundle as `sandbox-worker.mjs`, with the `.wasm` file beside it.
 */
import { parentPort } from 'node:worker_threads';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import {
  type CustomizeVariantOptions,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
} from 'quickjs-emscripten-core';
import { MIB, SANDBOX_LIMITS } from './limits.ts';
import type { ConsoleOutput, WorkerMessage, WorkerOutcome, WorkerRequest } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('shared/sandbox/worker.ts runs as a worker thread');

// The thread's console goes to the host as messages, kept there for diagnostics and never printed: an
// aborting WebAssembly module writes its reason there. Set before QuickJS loads, as it binds the console.
const forward = (...args: unknown[]) =>
  port.postMessage({ type: 'log', text: args.map(String).join(' ').slice(0, 1_000) } satisfies WorkerMessage);
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = forward;

// QuickJS's own limit (setMemoryLimit) misses memory it does not account for at its allocations (large
// strings and arrays grown piecemeal reach gigabytes under a 64 MB limit): the WebAssembly memory itself
// is capped, so an allocation past the cap fails inside QuickJS as out of memory.
const WASM_PAGE_BYTES = 64 * 1024;
// The global is there at run time; the compiler's `lib` (no DOM) only knows its types.
type MemoryConstructor = new (descriptor: {
  initial: number;
  maximum: number;
}) => CustomizeVariantOptions['wasmMemory'];
const wasm = (globalThis as unknown as { WebAssembly: { Memory: MemoryConstructor } }).WebAssembly;
const wasmMemory = new wasm.Memory({
  initial: (16 * MIB) / WASM_PAGE_BYTES,
  maximum: SANDBOX_LIMITS.wasmMemoryBytes / WASM_PAGE_BYTES,
});
const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory }));

/**
 * The user's code becomes the body of an async function of `data` (`args` for a tool's body). The prefix
 * is one line, so that the line numbers of errors are the user's own. JSON.parse/stringify are taken
 * before the user's code runs (it may replace them for itself, not for the driver). `process` holds only
 * `env` (the workspace's environment variables). `console` is a silent stand-in, so that code written
 * with logging still runs, or, when the caller keeps the output, prints into two bounded strings that
 * `__promptopsOutput()` (not writable by the code) answers as JSON.
 */
function jsPrefix(request: Extract<WorkerRequest, { kind: 'javascript' }>): string {
  const console = request.captureOutput
    ? `const output = { stdout: '', stderr: '' }; const show = function (value) { try { if (typeof value === 'string') return value; const json = stringify(value); return json === undefined ? String(value) : json; } catch (error) { return '[unprintable]'; } }; const printer = function (stream) { return function () { if (output[stream].length >= ${SANDBOX_LIMITS.maxOutputChars}) return; let line = ''; for (let i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + show(arguments[i]); output[stream] = (output[stream] + line + '\\n').slice(0, ${SANDBOX_LIMITS.maxOutputChars}); }; }; globalThis.console = { log: printer('stdout'), info: printer('stdout'), debug: printer('stdout'), warn: printer('stderr'), error: printer('stderr'), trace: printer('stderr') }; Object.defineProperty(globalThis, '__promptopsOutput', { value: function () { return stringify(output); } });`
    : 'const noop = function () {}; globalThis.console = { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop };';
  return `(function () { const input = globalThis.__promptopsInput; delete globalThis.__promptopsInput; const env = globalThis.__promptopsEnv; delete globalThis.__promptopsEnv; const parse = JSON.parse; const stringify = JSON.stringify; ${console} globalThis.process = { env: parse(env) }; const fn = (async function (${request.parameter}) {`;
}
const JS_SUFFIX = `
}); return fn(parse(input)).then(function (value) {
  let json;
  try { json = stringify(value === undefined ? null : value); }
  catch (error) { throw { __promptopsNotJson: String(error) }; }
  return json === undefined ? 'null' : json;
}); })()`;

const REGEX_DRIVER = `(function () {
  const { pattern, flags, input, mode } = globalThis.__promptopsRegex; delete globalThis.__promptopsRegex;
  const re = new RegExp(pattern, flags);
  if (mode === 'test') return JSON.stringify(re.test(input));
  const all = flags.includes('g') ? re : new RegExp(pattern, flags + 'g');
  const matches = [];
  for (const match of input.matchAll(all)) matches.push(match[0]);
  return JSON.stringify(matches);
})()`;

port.on('message', (request: WorkerRequest) => {
  const { outcome, poisoned } = run(request);
  const message: WorkerMessage = { type: 'result', id: request.id, outcome, poisoned };
  port.postMessage(message);
});
port.postMessage({ type: 'ready' } satisfies WorkerMessage);

interface Run {
  outcome: WorkerOutcome;
  poisoned: boolean;
}

function run(request: WorkerRequest): Run {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(request.memoryBytes);
  runtime.setMaxStackSize(SANDBOX_LIMITS.quickjsStackBytes);
  const deadline = Date.now() + request.timeoutMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => {
    if (Date.now() < deadline) return false;
    interrupted = true;
    return true;
  });
  const context = runtime.newContext();
  let outcome: WorkerOutcome;
  let poisoned = false;
  try {
    outcome = request.kind === 'javascript' ? runJavaScript(context, request) : runRegex(context, request);
  } catch (error) {
    // Thrown by the host side of QuickJS (the thread's stack ran out inside the WebAssembly, or the
    // module aborted): the module's state is unknown.
    poisoned = true;
    outcome = failureOfHostError(error, request);
  }
  if (interrupted) outcome = timedOut(request.timeoutMs);
  if (interrupted || (!outcome.ok && outcome.reason !== 'error') || isStackOverflow(outcome)) poisoned = true;
  if (request.kind === 'javascript' && request.captureOutput) {
    outcome = { ...outcome, output: poisoned ? { stdout: '', stderr: '' } : printedOutput(context) };
  }
  if (!poisoned) {
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      poisoned = true;
    }
  }
  return { outcome, poisoned };
}

function runJavaScript(context: QuickJSContext, request: Extract<WorkerRequest, { kind: 'javascript' }>) {
  setGlobal(context, '__promptopsInput', context.newString(request.input));
  setGlobal(context, '__promptopsEnv', context.newString(request.env));
  const evaluated = context.evalCode(`${jsPrefix(request)}${request.code}${JS_SUFFIX}`, 'code.js');
  if (evaluated.error) return failureOf(context, evaluated.error, request);
  const promise = evaluated.value;
  // Settles the promise: the code's own awaits, then the `.then` above. No timers exist, so nothing
  // can be pending once the job queue is empty.
  for (;;) {
    const jobs = context.runtime.executePendingJobs();
    if (jobs.error) {
      const failure = failureOf(context, jobs.error, request);
      promise.dispose();
      return failure;
    }
    if (jobs.value === 0) break;
  }
  const state = context.getPromiseState(promise);
  if (state.type === 'fulfilled' && state.notAPromise) {
    // The code closed the function it is wrapped in and made the script end on another value.
    state.value.dispose();
    return { ok: false, reason: 'error', error: 'the code must be the body of a function' } as const;
  }
  promise.dispose();
  if (state.type === 'pending') {
    return { ok: false, reason: 'error', error: 'the code returned a promise that never settles' } as const;
  }
  if (state.type === 'rejected') return failureOf(context, state.error, request);
  return jsonOutcome(context, state.value);
}

/** What the run's console printed (kept by the prefix); empty when the code never got to run. */
function printedOutput(context: QuickJSContext): ConsoleOutput {
  const empty = { stdout: '', stderr: '' };
  try {
    const printed = context.evalCode('globalThis.__promptopsOutput()', 'output.js');
    if (printed.error) {
      printed.error.dispose();
      return empty;
    }
    const text = context.typeof(printed.value) === 'string' ? context.getString(printed.value) : '';
    printed.value.dispose();
    const parsed = text ? (JSON.parse(text) as Partial<ConsoleOutput>) : {};
    return { stdout: String(parsed.stdout ?? ''), stderr: String(parsed.stderr ?? '') };
  } catch {
    return empty;
  }
}

function runRegex(context: QuickJSContext, request: Extract<WorkerRequest, { kind: 'regex' }>) {
  const args = context.newObject();
  for (const key of ['pattern', 'flags', 'input', 'mode'] as const) {
    const value = context.newString(request[key]);
    context.setProp(args, key, value);
    value.dispose();
  }
  setGlobal(context, '__promptopsRegex', args);
  const evaluated = context.evalCode(REGEX_DRIVER, 'regex.js');
  if (evaluated.error) return failureOf(context, evaluated.error, request);
  return jsonOutcome(context, evaluated.value);
}

function setGlobal(context: QuickJSContext, name: string, handle: QuickJSHandle): void {
  context.setProp(context.global, name, handle);
  handle.dispose();
}

function jsonOutcome(context: QuickJSContext, handle: QuickJSHandle): WorkerOutcome {
  // The driver answers a string; code that tampered with the builtins it uses could make it otherwise.
  if (context.typeof(handle) !== 'string') {
    handle.dispose();
    return { ok: false, reason: 'error', error: 'the returned value is not JSON' };
  }
  const json = context.getString(handle);
  handle.dispose();
  const bytes = Buffer.byteLength(json);
  if (bytes > SANDBOX_LIMITS.maxOutputBytes) {
    return {
      ok: false,
      reason: 'error',
      error: `the returned value is too large: ${bytes} bytes of JSON, the limit is ${SANDBOX_LIMITS.maxOutputBytes / MIB} MB`,
    };
  }
  const depth = nestingDepth(json);
  if (depth > SANDBOX_LIMITS.maxOutputDepth) {
    return {
      ok: false,
      reason: 'error',
      error: `the returned value nests ${depth} levels deep, the limit is ${SANDBOX_LIMITS.maxOutputDepth}`,
    };
  }
  return { ok: true, json };
}

/** The deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count). */
function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x5d || char === 0x7d) depth--;
  }
  return deepest;
}

/** A value thrown inside QuickJS, as the user should read it. */
function failureOf(context: QuickJSContext, handle: QuickJSHandle, request: WorkerRequest): WorkerOutcome {
  let thrown: unknown;
  try {
    thrown = context.dump(handle);
  } catch {
    thrown = undefined;
  } finally {
    handle.dispose();
  }
  if (isRecord(thrown) && typeof thrown.__promptopsNotJson === 'string') {
    return {
      ok: false,
      reason: 'error',
      error: `the returned value is not JSON: ${thrown.__promptopsNotJson}`,
    };
  }
  if (isRecord(thrown) && typeof thrown.message === 'string') {
    const name = typeof thrown.name === 'string' ? thrown.name : 'Error';
    if (name === 'InternalError' && thrown.message === 'interrupted') return timedOut(request.timeoutMs);
    if (name === 'InternalError' && thrown.message === 'out of memory')
      return outOfMemory(request.memoryBytes);
    return { ok: false, reason: 'error', error: `${name}: ${thrown.message}${locationOf(thrown.stack)}` };
  }
  return { ok: false, reason: 'error', error: `the code threw ${describe(thrown)}` };
}

function failureOfHostError(error: unknown, request: WorkerRequest): WorkerOutcome {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return { ok: false, reason: 'error', error: 'RangeError: Maximum call stack size exceeded' };
  }
  if (error instanceof Error && /out of memory|memory access out of bounds/i.test(error.message)) {
    return outOfMemory(request.memoryBytes);
  }
  return {
    ok: false,
    reason: 'error',
    error: `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
  };
}

const timedOut = (timeoutMs: number): WorkerOutcome => ({
  ok: false,
  reason: 'timeout',
  error: `timed out after ${timeoutMs} ms`,
});

const outOfMemory = (bytes: number): WorkerOutcome => ({
  ok: false,
  reason: 'memory',
  error: `memory limit exceeded (${Math.round((bytes / MIB) * 10) / 10} MB)`,
});

const isStackOverflow = (outcome: WorkerOutcome) =>
  !outcome.ok && outcome.error.startsWith('RangeError: Maximum call stack size exceeded');

/** ` (line 3)` from a QuickJS stack, when the error comes from the user's code. */
function locationOf(stack: unknown): string {
  if (typeof stack !== 'string') return '';
  const match = /\(code\.js:(\d+)(?::\d+)?\)/.exec(stack);
  return match ? ` (line ${match[1]})` : '';
}

function describe(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json.slice(0, 500);
  } catch {
    return String(value).slice(0, 500);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

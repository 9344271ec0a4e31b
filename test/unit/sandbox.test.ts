import { afterAll, describe, expect, it } from 'vitest';
import { SandboxHost } from '#shared/sandbox/host.ts';
import { SANDBOX_LIMITS } from '#shared/sandbox/limits.ts';
import { createSandbox } from '#shared/sandbox/sandbox.ts';

/**
 * The sandbox as a user's code meets it: QuickJS in a worker thread, from the sources. Time limits are
 * small so the file stays fast; outcomes are asserted, never durations. After every run that hits a
 * limit, the next run must work (the host replaces a poisoned or killed thread).
 */
const host = new SandboxHost({ maxWorkers: 1 });
const sandbox = createSandbox(host);
afterAll(() => sandbox.close());

const MB = 1024 * 1024;
const run = (code: string, data: unknown = null, timeoutMs = 2_000) =>
  sandbox.runJavaScript({ code, data, timeoutMs, memoryBytes: 64 * MB });

async function expectHealthy() {
  expect(await run('return data.n * 2', { n: 21 })).toEqual({ ok: true, value: 42 });
}

describe('sandbox: JavaScript', () => {
  it('returns the value of a small function of data', async () => {
    expect(await run('return data.a + data.b', { a: 1, b: 2 })).toEqual({ ok: true, value: 3 });
    expect(
      await run('return data.items.map((x) => x.name.toUpperCase())', { items: [{ name: 'a' }] }),
    ).toEqual({
      ok: true,
      value: ['A'],
    });
  });

  it('sees data as plain JSON and returns JSON values', async () => {
    expect(await run('return data', { nested: { list: [1, 'two', null, true] } })).toEqual({
      ok: true,
      value: { nested: { list: [1, 'two', null, true] } },
    });
    expect(await run('return typeof data', 'text')).toEqual({ ok: true, value: 'string' });
    expect(await run('return await Promise.resolve(data + 1)', 1)).toEqual({ ok: true, value: 2 });
  });

  it('has no require, fetch, timers or host modules, and a process with env only', async () => {
    const globals = ['require', 'fetch', 'setTimeout', 'setInterval', 'std', 'os', 'WebAssembly', 'module'];
    const result = await run(`return ${JSON.stringify(globals)}.map((name) => typeof globalThis[name])`);
    expect(result).toEqual({ ok: true, value: globals.map(() => 'undefined') });
    expect(await run('return [Object.keys(process), process.env]')).toEqual({
      ok: true,
      value: [['env'], {}],
    });
    expect(await run('return process.exit')).toEqual({ ok: true, value: null });
    expect(await run("return require('fs')")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^ReferenceError: require is not defined/),
    });
    // The constructor trick reaches the engine's own globals only: the stand-in process, no require.
    expect(await run("return this.constructor.constructor('return process')()")).toEqual({
      ok: true,
      value: { env: {} },
    });
    expect(await run("this.constructor.constructor('return require')()")).toMatchObject({
      ok: false,
      reason: 'error',
    });
  });

  it('gives the environment as process.env, and keeps console output only when asked', async () => {
    const code = "console.log('to', { out: 1 }); console.error('to err'); return [args.x, process.env]";
    const kept = await sandbox.runJavaScript({
      code,
      data: { x: 1 },
      env: { API_TOKEN: 'tok-abc' },
      parameter: 'args',
      captureOutput: true,
      timeoutMs: 2_000,
      memoryBytes: SANDBOX_LIMITS.memoryBytes,
    });
    expect(kept).toEqual({
      ok: true,
      value: [1, { API_TOKEN: 'tok-abc' }],
      output: { stdout: 'to {"out":1}\n', stderr: 'to err\n' },
    });
    const flood = await sandbox.runJavaScript({
      code: "for (let i = 0; i < 1e5; i++) console.log('line', i); throw new Error('late')",
      data: {},
      captureOutput: true,
      timeoutMs: 5_000,
      memoryBytes: SANDBOX_LIMITS.memoryBytes,
    });
    expect(flood).toMatchObject({ ok: false, error: 'Error: late (line 1)' });
    expect(flood.output?.stdout).toHaveLength(SANDBOX_LIMITS.maxOutputChars);
  });

  it('gives console as a silent stand-in', async () => {
    expect(await run("console.log('hello'); return 1")).toEqual({ ok: true, value: 1 });
  });

  it('turns a non-JSON return into null or a clear error', async () => {
    expect(await run('return () => 1')).toEqual({ ok: true, value: null });
    expect(await run('return undefined')).toEqual({ ok: true, value: null });
    expect(await run('const x = 1')).toEqual({ ok: true, value: null });
    expect(await run('return { f() {}, n: NaN }')).toEqual({ ok: true, value: { n: null } });
    expect(await run('return 10n')).toEqual({
      ok: false,
      reason: 'error',
      error: expect.stringMatching(/^the returned value is not JSON: TypeError: /),
    });
    // Tampering with the builtins the driver uses only spoils the code's own value.
    expect(
      await run("Promise.prototype.then = function () { return Promise.resolve('not json {'); }; return 1"),
    ).toEqual({
      ok: false,
      reason: 'error',
      error: 'the returned value is not JSON',
    });
    expect(await run('Promise.prototype.then = function () { return {}; }; return 1')).toMatchObject({
      ok: false,
      reason: 'error',
    });
    const cycle = await run('const a = {}; a.a = a; return a');
    expect(cycle).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the returned value is not JSON/),
    });
  });

  it('reports what the code throws, with the line', async () => {
    expect(await run('\n\nthrow new Error("boom")')).toEqual({
      ok: false,
      reason: 'error',
      error: 'Error: boom (line 3)',
    });
    expect(await run('return null.x')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^TypeError: /),
    });
    expect(await run('throw "plain"')).toEqual({
      ok: false,
      reason: 'error',
      error: 'the code threw "plain"',
    });
    expect(await run('return (')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^SyntaxError: /),
    });
    expect(await run('return new Promise(() => {})')).toEqual({
      ok: false,
      reason: 'error',
      error: 'the code returned a promise that never settles',
    });
    expect(await run('}); return 7; (function () {')).toEqual({
      ok: false,
      reason: 'error',
      error: 'the code must be the body of a function',
    });
  });

  it('stops an infinite loop at the time limit, then runs the next code', async () => {
    expect(await run('while (true) {}', null, 150)).toEqual({
      ok: false,
      reason: 'timeout',
      error: 'timed out after 150 ms',
    });
    await expectHealthy();
  });

  it('stops a memory bomb (memory limit or hard kill), then runs the next code', async () => {
    const bomb = await run("const a = []; while (true) a.push('x'.repeat(1e6))", null, 150);
    expect(bomb).toMatchObject({ ok: false, reason: expect.stringMatching(/^(memory|timeout)$/) });
    await expectHealthy();
    // What a run keeps counts, not only one allocation: 150 blocks of 1 MB pass the thread's 128 MB cap.
    expect(
      await run('const a = []; for (let i = 0; i < 150; i++) a.push(new Uint8Array(1e6)); return a.length'),
    ).toEqual({ ok: false, reason: 'memory', error: 'memory limit exceeded (64 MB)' });
    await expectHealthy();
    expect(
      await run('const a = []; for (let i = 0; i < 40; i++) a.push(new Uint8Array(1e6)); return a.length'),
    ).toEqual({ ok: true, value: 40 });
    // One allocation over the limit fails at once, as memory.
    expect(await run("return 'x'.repeat(100e6).length")).toEqual({
      ok: false,
      reason: 'memory',
      error: 'memory limit exceeded (64 MB)',
    });
    await expectHealthy();
  });

  it('ends a stack overflow with a clean error, then runs the next code', async () => {
    expect(await run('function f() { return f() + 1 } return f()')).toMatchObject({
      ok: false,
      reason: 'error',
      error: expect.stringMatching(/^RangeError: Maximum call stack size exceeded/),
    });
    await expectHealthy();
    expect(await run('function f(n) { return n ? f(n - 1) + 1 : 0 } return f(1000)')).toEqual({
      ok: true,
      value: 1000,
    });
  });

  it('refuses an output over the limit instead of cutting it', async () => {
    const result = await run(`return 'x'.repeat(${SANDBOX_LIMITS.maxOutputBytes + 1})`);
    expect(result).toEqual({
      ok: false,
      reason: 'error',
      error: `the returned value is too large: ${SANDBOX_LIMITS.maxOutputBytes + 3} bytes of JSON, the limit is 1 MB`,
    });
    expect(await run(`return 'x'.repeat(${SANDBOX_LIMITS.maxOutputBytes - 2})`)).toMatchObject({ ok: true });
  });

  it('refuses a value nested deeper than the limit (it once overflowed the stack of what stored it)', async () => {
    const nest = (depth: number) => `let v = []; for (let i = 1; i < ${depth}; i++) v = [v]; return v`;
    expect(await run(nest(5000))).toEqual({
      ok: false,
      reason: 'error',
      error: `the returned value nests 5000 levels deep, the limit is ${SANDBOX_LIMITS.maxOutputDepth}`,
    });
    expect(await run(nest(SANDBOX_LIMITS.maxOutputDepth))).toMatchObject({ ok: true });
    // Brackets inside strings are text, not nesting.
    expect(await run(`return { s: '${'['.repeat(500)}' }`)).toMatchObject({ ok: true });
  });

  it('refuses input data over the limit', async () => {
    const result = await run('return 1', 'x'.repeat(SANDBOX_LIMITS.maxInputBytes));
    expect(result).toMatchObject({
      ok: false,
      reason: 'error',
      error: expect.stringMatching(/^the input data is too large/),
    });
  });

  it('keeps nothing from one run to the next', async () => {
    expect(await run('globalThis.leak = 1; Object.prototype.polluted = 1; return 1')).toEqual({
      ok: true,
      value: 1,
    });
    expect(await run('return [typeof leak, ({}).polluted ?? null]')).toEqual({
      ok: true,
      value: ['undefined', null],
    });
  });

  it('runs overlapping calls one after the other on one thread', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => run('return data * 10', n)));
    expect(results).toEqual([10, 20, 30].map((value) => ({ ok: true, value })));
    expect(host.workers).toBe(1);
  });
});

describe('sandbox: a pool of two threads', () => {
  it('runs a short call beside a long one, and both end as they should', async () => {
    const pool = createSandbox(new SandboxHost({ maxWorkers: 2 }));
    try {
      const [loop, sum] = await Promise.all([
        pool.runJavaScript({ code: 'while (true) {}', data: null, timeoutMs: 300, memoryBytes: 64 * MB }),
        pool.runJavaScript({ code: 'return data + 1', data: 1, timeoutMs: 2_000, memoryBytes: 64 * MB }),
      ]);
      expect(loop).toMatchObject({ ok: false, reason: 'timeout' });
      expect(sum).toEqual({ ok: true, value: 2 });
    } finally {
      await pool.close();
    }
  });
});

describe('sandbox: workspaces share the threads', () => {
  it("runs another workspace's code at once while one workspace's hostile runs queue behind its share", async () => {
    const pool = createSandbox(new SandboxHost({ maxWorkers: 2, maxPerOwner: 1 }));
    const finished: string[] = [];
    const track = (name: string, result: Promise<unknown>) => result.then(() => finished.push(name));
    try {
      const hostile = Array.from({ length: 6 }, (_, i) =>
        track(
          `hostile ${i}`,
          pool.runJavaScript({
            workspaceId: 1,
            code: 'while (true) {}',
            data: null,
            timeoutMs: 400,
            memoryBytes: 64 * MB,
          }),
        ),
      );
      const trivial = await pool.runJavaScript({
        workspaceId: 2,
        code: 'return data + 1',
        data: 1,
        timeoutMs: 2_000,
        memoryBytes: 64 * MB,
      });
      finished.push('trivial');
      expect(trivial).toEqual({ ok: true, value: 2 });
      // Before any hostile run timed out: workspace 1 held one thread, the other was free for workspace 2.
      expect(finished).toEqual(['trivial']);
      await Promise.all(hostile);
      expect(finished).toHaveLength(7);
    } finally {
      await pool.close();
    }
  });
});

describe('sandbox: regular expressions', () => {
  const regex = (pattern: string, input: string, mode: 'test' | 'match_all', flags = '') =>
    sandbox.runRegex({ pattern, flags, input, mode, timeoutMs: 150 });

  it('tests and matches all', async () => {
    expect(await regex('^a\\d+$', 'a123', 'test')).toEqual({ ok: true, value: true });
    expect(await regex('B', 'abc', 'test', 'i')).toEqual({ ok: true, value: true });
    expect(await regex('\\d+', 'a1b22c333', 'match_all')).toEqual({ ok: true, value: ['1', '22', '333'] });
    expect(await regex('x', 'abc', 'match_all')).toEqual({ ok: true, value: [] });
  });

  it('stops a catastrophic pattern at the time limit, then runs the next', async () => {
    expect(await regex('(a+)+$', `${'a'.repeat(40)}b`, 'test')).toEqual({
      ok: false,
      reason: 'timeout',
      error: 'timed out after 150 ms',
    });
    expect(await regex('a+', 'caab', 'match_all')).toEqual({ ok: true, value: ['aa'] });
  });

  it('reports an invalid pattern and bounds pattern and input sizes', async () => {
    expect(await regex('(', 'x', 'test')).toMatchObject({
      ok: false,
      reason: 'error',
      error: expect.stringMatching(/^SyntaxError/),
    });
    expect(await regex('a'.repeat(SANDBOX_LIMITS.maxPatternLength + 1), 'x', 'test')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the regular expression is too long/),
    });
    expect(await regex('a', 'x'.repeat(SANDBOX_LIMITS.maxRegexInputLength + 1), 'test')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the text is too long/),
    });
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { SandboxHost } from '#shared/sandbox/host.ts';
import { createSandbox } from '#shared/sandbox/sandbox.ts';

/**
 * The 64 MB limit holds for memory QuickJS does not account for at its allocations (large strings and
 * arrays grown piecemeal): the worker thread's WebAssembly memory itself is capped, so a run cannot
 * take hundreds of megabytes of the process (a Lambda of 1 GB would be killed with every node it runs).
 */
const host = new SandboxHost({ maxWorkers: 1 });
const sandbox = createSandbox(host);
afterAll(() => sandbox.close());

const MB = 1024 * 1024;
const run = (code: string, timeoutMs = 20_000) =>
  sandbox.runJavaScript({ code, data: null, timeoutMs, memoryBytes: 64 * MB });

describe('sandbox: the memory cap', () => {
  it('refuses 200 MB of strings kept alive, as memory, then runs the next code', async () => {
    const strings = await run(
      'const kept = []; for (let i = 0; i < 200; i++) kept.push(String(i % 10).repeat(1048576)); return kept.length',
    );
    expect(strings).toMatchObject({ ok: false, reason: 'memory' });
    expect(await run('return 1 + 1')).toEqual({ ok: true, value: 2 });
  });

  it('refuses 200 arrays of a million numbers kept alive, as memory', async () => {
    const arrays = await run(
      'const kept = []; for (let i = 0; i < 200; i++) kept.push(new Array(1e6).fill(i)); return kept.length',
    );
    expect(arrays).toMatchObject({ ok: false, reason: 'memory' });
    expect(await run('return 2 + 2')).toEqual({ ok: true, value: 4 });
  });
});

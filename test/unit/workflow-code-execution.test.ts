import { afterAll, describe, expect, it } from 'vitest';
import { SandboxHost } from '#shared/sandbox/host.ts';
import { createSandbox } from '#shared/sandbox/sandbox.ts';
import { codeExecution } from '#shared/workflows/nodes/code-execution.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import type { NodeContext, NodePorts } from '#shared/workflows/nodes/types.ts';

/** CODE_EXECUTION through the node registry, on the real sandbox (a worker thread from the sources). */
const sandbox = createSandbox(new SandboxHost({ maxWorkers: 1 }));
afterAll(() => sandbox.close());

const env: Record<string, string> = {};
const ports = { sandbox, env: { workspaceEnvironment: async () => env } } as unknown as NodePorts;
const contextWith = (inputs: Record<string, unknown>, deadline = Date.now() + 60_000): NodeContext => ({
  workspaceId: 1,
  inputs,
  deadline,
  ports,
});
const runNode = (configuration: Record<string, unknown>, inputs: Record<string, unknown> = {}) =>
  executeNode({ node_type: 'CODE_EXECUTION', configuration }, contextWith(inputs));

describe('CODE_EXECUTION', () => {
  it('runs JavaScript over the inputs (input variables and dependency values) as data', async () => {
    await expect(
      runNode(
        { code: 'return data.question.length + data.count', language: 'JAVASCRIPT' },
        { question: 'abc', count: 2 },
      ),
    ).resolves.toBe(5);
    // JAVASCRIPT is the default; lowercase is taken.
    await expect(runNode({ code: 'return Object.keys(data)' }, { a: 1, b: null })).resolves.toEqual([
      'a',
      'b',
    ]);
    await expect(runNode({ code: 'return 1', language: 'javascript' })).resolves.toBe(1);
  });

  it('fails PYTHON at run time, accepting it in the configuration', () => {
    expect(codeExecution.config.safeParse({ code: 'return 1', language: 'PYTHON' }).success).toBe(true);
    return expect(runNode({ code: 'return 1', language: 'PYTHON' })).rejects.toMatchObject({
      name: 'NodeFailure',
      message: 'language PYTHON is not supported',
    });
  });

  it('rejects an invalid configuration', () => {
    for (const configuration of [
      {},
      { code: 1 },
      { code: 'x', language: 'RUBY' },
      { code: 'x', timeout_seconds: 0 },
      { code: 'x', timeout_seconds: 61 },
    ]) {
      expect(codeExecution.config.safeParse(configuration).success, JSON.stringify(configuration)).toBe(
        false,
      );
    }
    expect(codeExecution.config.safeParse({ code: 'x', timeout_seconds: 60 }).success).toBe(true);
  });

  it("sees the workspace's environment variables as process.env", async () => {
    env.API_TOKEN = 'tok-123';
    try {
      await expect(runNode({ code: 'return [process.env.API_TOKEN, process.env.MISSING]' })).resolves.toEqual(
        ['tok-123', null],
      );
    } finally {
      delete env.API_TOKEN;
    }
  });

  it('turns a thrown error into a node failure with its message', async () => {
    await expect(runNode({ code: "throw new Error('bad input')" })).rejects.toMatchObject({
      name: 'NodeFailure',
      message: 'Error: bad input (line 1)',
    });
  });

  it('times out at timeout_seconds and keeps working after', async () => {
    await expect(runNode({ code: 'while (true) {}', timeout_seconds: 1 })).rejects.toMatchObject({
      name: 'NodeFailure',
      message: 'timed out after 1000 ms',
    });
    await expect(runNode({ code: 'return data.x', timeout_seconds: 1 }, { x: 'ok' })).resolves.toBe('ok');
  });

  it('is bounded by the run deadline when it comes first', async () => {
    const context = contextWith({}, Date.now() - 1);
    await expect(
      executeNode({ node_type: 'CODE_EXECUTION', configuration: { code: 'return 1' } }, context),
    ).rejects.toMatchObject({ name: 'NodeFailure', message: expect.stringMatching(/^timed out/) });
  });

  it('reports the memory limit', async () => {
    await expect(runNode({ code: "return 'x'.repeat(100e6)" })).rejects.toMatchObject({
      name: 'NodeFailure',
      message: 'memory limit exceeded (64 MB)',
    });
  });
});

import { sandboxPort } from '#shared/sandbox/sandbox.ts';
import { codeExecution } from '#shared/workflows/nodes/code-execution.ts';
import type { NodeContext, NodePorts } from '#shared/workflows/nodes/types.ts';

/**
 * A small function that uses the sandbox, bundled by test/infra/sandbox-bundle.test.ts as the stack
 * bundles a function whose row says `sandbox: true`, then run with plain `node` away from node_modules.
 */
export async function handler() {
  const context = (inputs: Record<string, unknown>): NodeContext => ({
    workspaceId: 1,
    inputs,
    deadline: Date.now() + 60_000,
    ports: { sandbox: sandboxPort, env: { workspaceEnvironment: async () => ({}) } } as unknown as NodePorts,
  });
  const node = (code: string, inputs: Record<string, unknown> = {}) =>
    codeExecution.execute({ code, language: 'JAVASCRIPT', timeout_seconds: 1 }, context(inputs)).then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    );
  return {
    sum: await node('return data.a + data.b', { a: 1, b: 2 }),
    globals: await node('return [typeof process, typeof require, typeof fetch, typeof setTimeout]'),
    loop: await node('while (true) {}'),
    afterLoop: await node('return data.x', { x: 'still working' }),
    regex: await sandboxPort.runRegex({
      pattern: '(a+)+$',
      flags: '',
      input: `${'a'.repeat(40)}b`,
      mode: 'test',
      timeoutMs: 200,
    }),
  };
}

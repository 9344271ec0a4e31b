import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';

/**
 * Tool bodies and POST /api/public/v2/tool-registry/{identifier}/test-execute through the local gateway:
 * a stored body by version and label, an in-flight body, args and process.env (the tool's variables over
 * the workspace's, masked in the answer), the code's failures and the sandbox's limits as a 200 with
 * `status: "error"`, and the 4xx of what cannot run.
 */
const TOOLS = '/api/public/v2/tool-registry';
const at = (tool: string | number, rest = '') => `${TOOLS}/${encodeURIComponent(String(tool))}${rest}`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const definition = {
  name: 'add',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
};
const js = (code: string) => ({ type: 'code', language: 'javascript', code });

async function createTool(execution: unknown, key?: string) {
  const name = uniqueName('exec');
  const answer = await service.call('POST', TOOLS, {
    key,
    body: { name, tool_definition: definition, execution },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { id: answer.body.tool_registry.id as number, name, version: answer.body.version };
}
const testExecute = (
  tool: string | number,
  body: unknown,
  query: Record<string, string> = {},
  key?: string,
) => service.call('POST', at(tool, '/test-execute'), { body, query, key });

describe('tool bodies', () => {
  it('are stored with a version and shown by the reads', async () => {
    const tool = await createTool(js('return args.a + args.b;'));
    expect(tool.version.execution).toEqual(js('return args.a + args.b;'));
    const read = await service.call('GET', at(tool.id));
    expect(read.body.tool_registry.version.execution).toEqual(js('return args.a + args.b;'));
    const second = await service.call('POST', at(tool.id, '/versions'), {
      body: { tool_definition: definition },
    });
    expect(second.body.version.execution).toBeNull();
  });
});

describe('test-execute', () => {
  it('runs the latest body with inputs as args, printing to stdout and stderr', async () => {
    const tool = await createTool(
      js("console.log('adding', args); console.warn('careful'); return args.a + args.b;"),
    );
    const answer = await testExecute(tool.name, { inputs: { a: 2, b: 40 } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: 'Tool executed',
      result: {
        status: 'success',
        result: 42,
        stdout: 'adding {"a":2,"b":40}\n',
        stderr: 'careful\n',
        duration_ms: expect.any(Number),
        error: null,
      },
    });
  });

  it('picks a version by number or label, or runs the body sent instead', async () => {
    const tool = await createTool(js("return 'v1';"));
    await service.call('POST', at(tool.id, '/versions'), {
      body: { tool_definition: definition, execution: js("return 'v2';"), release_labels: ['prod'] },
    });
    await service.call('POST', at(tool.id, '/versions'), {
      body: { tool_definition: definition, execution: js("return 'v3';") },
    });
    const resultOf = async (query: Record<string, string>, body: unknown = {}) =>
      (await testExecute(tool.id, body, query)).body.result.result;
    expect(await resultOf({})).toBe('v3');
    expect(await resultOf({ version: '1' })).toBe('v1');
    expect(await resultOf({ label: 'prod' })).toBe('v2');
    expect(await resultOf({}, { execution: js('return args.x * 2;'), inputs: { x: 21 } })).toBe(42);
  });

  it("gives the workspace's variables under the tool's own as process.env, masked in the answer", async () => {
    const tool = await createTool(
      js(
        "console.log('token is', process.env.SHARED_TOKEN); return { shared: process.env.SHARED_TOKEN, region: process.env.REGION_ONLY_WS };",
      ),
    );
    await service.call('POST', '/api/public/v2/env-vars', {
      body: { key: 'SHARED_TOKEN', value: 'workspace-token-value' },
    });
    await service.call('POST', '/api/public/v2/env-vars', { body: { key: 'REGION_ONLY_WS', value: 'eu' } });
    await service.call('POST', at(tool.id, '/env-vars'), {
      body: { key: 'SHARED_TOKEN', value: 'tool-token-secret-123' },
    });
    const answer = await testExecute(tool.id, {});
    // The tool's value won; values of 4 characters or more are masked wherever the answer shows them.
    expect(answer.body.result).toMatchObject({
      status: 'success',
      result: { shared: '***', region: 'eu' },
      stdout: 'token is ***\n',
    });
    expect(JSON.stringify(answer.body)).not.toContain('tool-token-secret-123');
    const probe = await testExecute(tool.id, {
      execution: js("return process.env.SHARED_TOKEN.split('').reverse().join('');"),
    });
    expect(probe.body.result.result).toBe('321-terces-nekot-loot');
  });

  it('answers what the code throws as status error, never a 5xx', async () => {
    const tool = await createTool(js("throw new TypeError('bad input: ' + args.q);"));
    const answer = await testExecute(tool.id, { inputs: { q: 'x' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: 'Tool execution failed',
      result: {
        status: 'error',
        result: null,
        stdout: '',
        stderr: '',
        duration_ms: expect.any(Number),
        error: { type: 'TypeError', message: 'TypeError: bad input: x (line 1)' },
      },
    });
    const syntax = await testExecute(tool.id, { execution: js('return (;') });
    expect(syntax.body.result).toMatchObject({ status: 'error', error: { type: 'SyntaxError' } });
    const python = await testExecute(tool.id, {
      execution: { type: 'code', language: 'python', code: 'return 1' },
    });
    expect(python.body.result).toMatchObject({
      status: 'error',
      error: { type: 'UnsupportedLanguageError' },
    });
  });

  it("applies the sandbox's limits: time, memory, output size and nesting", async () => {
    const tool = await createTool(js('return 1;'));
    const run = async (code: string) => (await testExecute(tool.id, { execution: js(code) })).body.result;
    expect(await run("console.log('before'); while (true) {}")).toMatchObject({
      status: 'error',
      error: { type: 'TimeoutError', message: 'timed out after 5000 ms' },
    });
    // One allocation past the heap: a memory failure however loaded the machine is.
    expect(await run("return 'x'.repeat(100e6);")).toMatchObject({
      status: 'error',
      error: { type: 'MemoryLimitError', message: 'memory limit exceeded (64 MB)' },
    });
    expect(await run("return 'x'.repeat(2 * 1024 * 1024);")).toMatchObject({
      status: 'error',
      error: { message: expect.stringMatching(/^the returned value is too large/) },
    });
    expect(await run('let v = 1; for (let i = 0; i < 500; i++) v = [v]; return v;')).toMatchObject({
      status: 'error',
      error: { message: 'the returned value nests 500 levels deep, the limit is 128' },
    });
    // The sandbox works after the kills.
    expect(await run('return 7;')).toMatchObject({ status: 'success', result: 7 });
  }, 30_000);

  it('refuses what cannot run with a 4xx, writing nothing', async () => {
    const bare = await createTool(null);
    const missing = await service.rejected('POST', at(bare.id, '/test-execute'), { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/no execution config/);
    expect((await service.rejected('POST', at('no-such-tool', '/test-execute'), { body: {} })).status).toBe(
      404,
    );
    expect(
      (await service.rejected('POST', at(bare.id, '/test-execute'), { body: {}, query: { version: '9' } }))
        .status,
    ).toBe(404);
    expect(
      (
        await service.rejected('POST', at(bare.id, '/test-execute'), {
          body: {},
          query: { version: '1', label: 'x' },
        })
      ).status,
    ).toBe(422);
    for (const body of [
      { inputs: 'not an object' },
      { execution: { type: 'code', language: 'ruby', code: '1' } },
      { execution: { type: 'code', language: 'javascript', code: 'x'.repeat(100_001) } },
      { tool_definition: { name: 'bad name!', parameters: { type: 'object' } } },
    ]) {
      expect((await service.rejected('POST', at(bare.id, '/test-execute'), { body })).status).toBe(422);
    }
  });

  it("never runs another workspace's tool, nor for a read-only key", async () => {
    const tool = await createTool(js('return 1;'));
    const other = await service.otherWorkspaceKey('test-execute-other');
    expect(
      (await service.rejected('POST', at(tool.id, '/test-execute'), { key: other, body: {} })).status,
    ).toBe(404);
    expect(
      (await service.rejected('POST', at(tool.name, '/test-execute'), { key: other, body: {} })).status,
    ).toBe(404);
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    expect(
      (await service.rejected('POST', at(tool.id, '/test-execute'), { key: readOnly, body: {} })).status,
    ).toBe(403);
    // Their own tool runs with their own variables, never this workspace's.
    await service.call('POST', '/api/public/v2/env-vars', {
      body: { key: 'ISOLATED', value: 'this-workspace-only' },
    });
    const theirs = await createTool(js("return process.env.ISOLATED ?? 'unset';"), other);
    expect((await testExecute(theirs.id, {}, {}, other)).body.result.result).toBe('unset');
  });
});

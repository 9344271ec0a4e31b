import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { logger } from '#shared/platform/logger.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { reportOver } from '#test/support/reports.ts';
import { runToResults } from '#test/support/workflows.ts';

/**
 * Environment variables through the local gateway: both scopes (workspace, tool), their shapes and
 * errors, isolation and permissions, secrecy (a value is never in an answer, an error, a log line or the
 * table in clear) and the values reaching CODE_EXECUTION nodes and report columns as process.env.
 */
const WORKSPACE = '/api/public/v2/env-vars';
const TOOLS = '/api/public/v2/tool-registry';
const toolVars = (tool: string | number) => `${TOOLS}/${encodeURIComponent(String(tool))}/env-vars`;
const SECRET = 'sk-live-e2e-SECRET-value-9f3a7c';

let service: TestService;
/** Everything written to stdout and stderr, and every logger call, while the file runs. */
const printed: string[] = [];
beforeAll(async () => {
  service = await startTestService();
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    const log = logger[level].bind(logger) as (...args: unknown[]) => void;
    vi.spyOn(logger, level).mockImplementation(((...args: unknown[]) => {
      printed.push(JSON.stringify(args, (_key, value) => (value instanceof Error ? String(value) : value)));
      log(...args);
    }) as typeof logger.info);
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return write(chunk, ...rest);
    }) as typeof stream.write);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await service?.stop();
});

const newKey = () => uniqueName('KEY').replace(/[^A-Za-z0-9_]/g, '_');
async function createTool(key?: string) {
  const name = uniqueName('envtool');
  const answer = await service.call('POST', TOOLS, {
    key,
    body: {
      name,
      tool_definition: { name: 'echo', parameters: { type: 'object', properties: {} } },
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { id: answer.body.tool_registry.id as number, name };
}

/** Every item of the table, as text. */
async function tableText(): Promise<string> {
  const client = new DynamoDBClient({ endpoint: service.dynamodbEndpoint });
  const items: unknown[] = [];
  for await (const page of paginateScan({ client }, { TableName: service.tableName }))
    items.push(...(page.Items ?? []));
  return JSON.stringify(items);
}

describe('workspace variables', () => {
  it('creates, lists, updates and deletes, answering suffixes and never values', async () => {
    const key = newKey();
    const created = await service.call('POST', WORKSPACE, { body: { key, value: SECRET } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      workspace_env_var: {
        id: expect.any(Number),
        key,
        value_suffix: SECRET.slice(-4),
        is_empty: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        workspace_id: service.workspaceId,
      },
    });
    const { id } = created.body.workspace_env_var;

    const placeholder = await service.call('POST', WORKSPACE, { body: { key: `${key}_LATER` } });
    expect(placeholder.body.workspace_env_var).toMatchObject({ value_suffix: null, is_empty: true });
    const short = await service.call('POST', WORKSPACE, { body: { key: `${key}_SHORT`, value: 'abc123' } });
    // A short value shows no suffix: four of its six characters would be most of it.
    expect(short.body.workspace_env_var).toMatchObject({ value_suffix: null, is_empty: false });

    const list = await service.call('GET', WORKSPACE);
    const mine = list.body.workspace_env_vars.filter((item: { key: string }) => item.key.startsWith(key));
    expect(mine.map((item: { key: string }) => item.key)).toEqual([key, `${key}_LATER`, `${key}_SHORT`]);
    expect(mine[0]).toEqual(created.body.workspace_env_var);

    const updated = await service.call('PATCH', `${WORKSPACE}/${id}`, {
      body: { value: `${SECRET}-rotated-WXYZ` },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.workspace_env_var).toMatchObject({
      id,
      key,
      value_suffix: 'WXYZ',
      is_empty: false,
      created_at: created.body.workspace_env_var.created_at,
    });
    const filled = await service.call('PATCH', `${WORKSPACE}/${placeholder.body.workspace_env_var.id}`, {
      body: { value: 'now-set-value-1234' },
    });
    expect(filled.body.workspace_env_var).toMatchObject({ is_empty: false, value_suffix: '1234' });

    expect(await service.call('DELETE', `${WORKSPACE}/${id}`)).toMatchObject({
      status: 200,
      body: { success: true },
    });
    expect((await service.rejected('DELETE', `${WORKSPACE}/${id}`)).status).toBe(404);
    expect((await service.rejected('PATCH', `${WORKSPACE}/${id}`, { body: { value: 'x' } })).status).toBe(
      404,
    );
    const after = await service.call('GET', WORKSPACE);
    expect(after.body.workspace_env_vars.map((item: { id: number }) => item.id)).not.toContain(id);
    // The key is free again.
    expect((await service.call('POST', WORKSPACE, { body: { key, value: 'again' } })).status).toBe(201);
  });

  it('refuses a key taken in the workspace (409) and bad input (422), writing nothing', async () => {
    const key = newKey();
    await service.call('POST', WORKSPACE, { body: { key, value: 'first-value' } });
    const taken = await service.rejected('POST', WORKSPACE, { body: { key, value: SECRET } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain(key);
    for (const body of [
      { key: '1STARTS_WITH_DIGIT', value: SECRET },
      { key: 'HAS-DASH', value: SECRET },
      { key: '', value: SECRET },
      { key: 'X'.repeat(256), value: SECRET },
      { key: 'TOO_LONG', value: `${SECRET}${'x'.repeat(8192)}` },
      { key: 'NOT_A_STRING', value: 42 },
      { value: SECRET },
      { key: 'EXTRA', value: SECRET, scope: 'all' },
    ]) {
      const answer = await service.rejected('POST', WORKSPACE, { body });
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    const { body } = await service.call('POST', WORKSPACE, { body: { key: newKey(), value: 'v-value-1' } });
    const id = body.workspace_env_var.id;
    expect((await service.rejected('PATCH', `${WORKSPACE}/${id}`, { body: { value: '' } })).status).toBe(422);
    expect((await service.rejected('PATCH', `${WORKSPACE}/${id}`, { body: {} })).status).toBe(422);
    expect((await service.rejected('PATCH', `${WORKSPACE}/0${id}`, { body: { value: 'x' } })).status).toBe(
      404,
    );
    expect((await service.rejected('PATCH', `${WORKSPACE}/abc`, { body: { value: 'x' } })).status).toBe(422);
  });
});

describe('tool variables', () => {
  it('live under a tool (by id or name), apart from the workspace and other tools', async () => {
    const tool = await createTool();
    const other = await createTool();
    const key = newKey();
    const created = await service.call('POST', toolVars(tool.name), { body: { key, value: SECRET } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      tool_env_var: {
        id: expect.any(Number),
        key,
        value_suffix: SECRET.slice(-4),
        is_empty: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        tool_registry_id: tool.id,
      },
    });
    const { id } = created.body.tool_env_var;
    // The same key may exist once per tool and once in the workspace.
    expect(
      (await service.call('POST', toolVars(other.id), { body: { key, value: 'other-tool' } })).status,
    ).toBe(201);
    expect((await service.call('POST', WORKSPACE, { body: { key, value: 'workspace-value' } })).status).toBe(
      201,
    );
    expect((await service.rejected('POST', toolVars(tool.id), { body: { key, value: 'dup' } })).status).toBe(
      409,
    );

    expect((await service.call('GET', toolVars(tool.id))).body).toEqual({
      success: true,
      tool_env_vars: [created.body.tool_env_var],
    });
    // Another tool's path, or the workspace's, does not reach it.
    expect(
      (await service.rejected('PATCH', `${toolVars(other.id)}/${id}`, { body: { value: 'x' } })).status,
    ).toBe(404);
    expect((await service.rejected('DELETE', `${WORKSPACE}/${id}`)).status).toBe(404);

    const updated = await service.call('PATCH', `${toolVars(tool.id)}/${id}`, {
      body: { value: 'rotated-value-ABCD' },
    });
    expect(updated.body.tool_env_var).toMatchObject({ id, value_suffix: 'ABCD', tool_registry_id: tool.id });
    expect((await service.call('DELETE', `${toolVars(tool.name)}/${id}`)).body).toEqual({ success: true });
    expect((await service.call('GET', toolVars(tool.id))).body.tool_env_vars).toEqual([]);
  });

  it('takes a key once under concurrent creates, and at most 100 variables per scope', async () => {
    const tool = await createTool();
    const key = newKey();
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        service.call('POST', toolVars(tool.id), { body: { key, value: `racer-${i}-value` } }),
      ),
    );
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (let i = 1; i < 100; i++) {
      const answer = await service.call('POST', toolVars(tool.id), { body: { key: `V${i}` } });
      expect(answer.status).toBe(201);
    }
    const full = await service.rejected('POST', toolVars(tool.id), {
      body: { key: 'ONE_TOO_MANY', value: 'x' },
    });
    expect(full.status).toBe(422);
    expect(full.body.message).toMatch(/already has 100 environment variables/);
    expect((await service.call('GET', toolVars(tool.id))).body.tool_env_vars).toHaveLength(100);
    // A delete gives the place back; the workspace's own scope was never counted.
    const first = racing.find((answer) => answer.status === 201)!.body.tool_env_var.id;
    await service.call('DELETE', `${toolVars(tool.id)}/${first}`);
    expect((await service.call('POST', toolVars(tool.id), { body: { key: 'ONE_TOO_MANY' } })).status).toBe(
      201,
    );
  });

  it('answers 404 for an unknown tool, writing nothing', async () => {
    expect((await service.rejected('GET', toolVars('no-such-tool'))).status).toBe(404);
    expect(
      (await service.rejected('POST', toolVars('no-such-tool'), { body: { key: 'K', value: 'v' } })).status,
    ).toBe(404);
    expect((await service.rejected('DELETE', `${toolVars(999999999)}/1`)).status).toBe(404);
  });
});

describe('isolation and permissions', () => {
  it("never shows or touches another workspace's variables or tools", async () => {
    const mine = await service.call('POST', WORKSPACE, { body: { key: newKey(), value: SECRET } });
    const tool = await createTool();
    const toolVar = await service.call('POST', toolVars(tool.id), { body: { key: newKey(), value: SECRET } });
    const other = await service.otherWorkspaceKey('env-vars-other');
    const theirs = await service.call('GET', WORKSPACE, { key: other });
    expect(theirs.body.workspace_env_vars.map((item: { id: number }) => item.id)).not.toContain(
      mine.body.workspace_env_var.id,
    );
    const id = mine.body.workspace_env_var.id;
    expect(
      (await service.rejected('PATCH', `${WORKSPACE}/${id}`, { key: other, body: { value: 'x' } })).status,
    ).toBe(404);
    expect((await service.rejected('DELETE', `${WORKSPACE}/${id}`, { key: other })).status).toBe(404);
    expect((await service.rejected('GET', toolVars(tool.id), { key: other })).status).toBe(404);
    expect(
      (
        await service.rejected('DELETE', `${toolVars(tool.id)}/${toolVar.body.tool_env_var.id}`, {
          key: other,
        })
      ).status,
    ).toBe(404);
  });

  it('a read-only key lists and cannot create, update or delete', async () => {
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    const tool = await createTool();
    const workspaceVar = await service.call('POST', WORKSPACE, {
      body: { key: newKey(), value: 'v-value-1' },
    });
    const toolVar = await service.call('POST', toolVars(tool.id), {
      body: { key: newKey(), value: 'v-value-2' },
    });
    expect((await service.call('GET', WORKSPACE, { key: readOnly })).status).toBe(200);
    expect((await service.call('GET', toolVars(tool.id), { key: readOnly })).status).toBe(200);
    const refused = [
      await service.rejected('POST', WORKSPACE, { key: readOnly, body: { key: 'K', value: SECRET } }),
      await service.rejected('PATCH', `${WORKSPACE}/${workspaceVar.body.workspace_env_var.id}`, {
        key: readOnly,
        body: { value: SECRET },
      }),
      await service.rejected('DELETE', `${WORKSPACE}/${workspaceVar.body.workspace_env_var.id}`, {
        key: readOnly,
      }),
      await service.rejected('POST', toolVars(tool.id), { key: readOnly, body: { key: 'K', value: SECRET } }),
      await service.rejected('PATCH', `${toolVars(tool.id)}/${toolVar.body.tool_env_var.id}`, {
        key: readOnly,
        body: { value: SECRET },
      }),
      await service.rejected('DELETE', `${toolVars(tool.id)}/${toolVar.body.tool_env_var.id}`, {
        key: readOnly,
      }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403]);
  });
});

describe('values reach the code', () => {
  it('a CODE_EXECUTION node reads process.env; a placeholder is unset', async () => {
    const key = newKey();
    await service.call('POST', WORKSPACE, { body: { key, value: 'node-visible-value' } });
    await service.call('POST', WORKSPACE, { body: { key: `${key}_EMPTY` } });
    const name = uniqueName('envflow');
    const created = await service.call('POST', '/rest/workflows', {
      body: {
        name,
        nodes: [
          {
            name: 'reader',
            node_type: 'CODE_EXECUTION',
            configuration: {
              code: `return [process.env.${key}, '${key}_EMPTY' in process.env, process.env.NOPE ?? null]`,
            },
            dependencies: [],
            is_output_node: true,
          },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const results = await runToResults(service, name, {});
    expect(results.body.reader).toMatchObject({
      status: 'SUCCESS',
      value: ['node-visible-value', false, null],
    });
  });

  it('a CODE_EXECUTION report column reads process.env', async () => {
    const key = newKey();
    await service.call('POST', WORKSPACE, { body: { key, value: '41.5' } });
    const { report_id: reportId } = await reportOver(
      service,
      'question\nq1\nq2\n',
      {
        name: uniqueName('envreport'),
        columns: [
          {
            column_type: 'CODE_EXECUTION',
            name: 'from_env',
            configuration: { language: 'JAVASCRIPT', code: `return Number(process.env.${key}) + 1` },
            is_part_of_score: true,
          },
        ],
      },
      { fileName: 'rows.csv' },
    );
    const started = await service.call('POST', `/reports/${reportId}/run`, { body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await service.messaging.idle();
    const score = await service.call('GET', `/reports/${reportId}/score`);
    expect(score.body.score).toMatchObject({ overall_score: 42.5 });
  });
});

describe('secrecy', () => {
  it('never puts a value in an answer, an error, a log line or the table in clear', async () => {
    const key = newKey();
    const answers: unknown[] = [];
    const created = await service.call('POST', WORKSPACE, { body: { key, value: SECRET } });
    answers.push(created.body);
    const id = created.body.workspace_env_var.id;
    answers.push((await service.call('PATCH', `${WORKSPACE}/${id}`, { body: { value: SECRET } })).body);
    answers.push((await service.call('GET', WORKSPACE)).body);
    // Errors whose request carries the value: a taken key, a value too long, an unknown field, a
    // missing variable, a forbidden write, a malformed body.
    answers.push((await service.rejected('POST', WORKSPACE, { body: { key, value: SECRET } })).body);
    answers.push(
      (await service.rejected('POST', WORKSPACE, { body: { key: 'LONG', value: SECRET.repeat(400) } })).body,
    );
    answers.push(
      (await service.rejected('POST', WORKSPACE, { body: { key: 'X', value: SECRET, scope: 1 } })).body,
    );
    answers.push(
      (await service.rejected('PATCH', `${WORKSPACE}/999999999`, { body: { value: SECRET } })).body,
    );
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    answers.push(
      (await service.rejected('POST', WORKSPACE, { key: readOnly, body: { key, value: SECRET } })).body,
    );
    answers.push(
      (await service.rejected('POST', WORKSPACE, { rawBody: `{"key":"K","value":"${SECRET}"` })).body,
    );
    const tool = await createTool();
    answers.push((await service.call('POST', toolVars(tool.id), { body: { key, value: SECRET } })).body);
    answers.push((await service.call('GET', toolVars(tool.id))).body);

    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(SECRET.slice(0, -4));
    // The capture works (the refusals above were logged), and no line holds the value.
    expect(printed.join('')).toContain('Request rejected');
    expect(printed.join('')).not.toContain(SECRET.slice(0, -4));
    const stored = await tableText();
    expect(stored).not.toContain(SECRET.slice(0, -4));
    expect(stored).toMatch(/"valueSealed":\{"S":"v1\./);
  });
});

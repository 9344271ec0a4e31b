import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS_FILE, REPO_ROOT } from '#infra/local/service.ts';
import { keysCliArgs } from '#test/support/keys-cli.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * `npm run keys -- create --stack NAME` finds the table through the stack's TableName output. A fake
 * CloudFormation endpoint answers DescribeStacks with the local table's name.
 */
const run = promisify(execFile);
let service: TestService;
let cloudFormation: Server;
let describedStacks: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  cloudFormation = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      describedStacks.push(new URLSearchParams(body).get('StackName') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      res.end(`<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult><Stacks><member>
    <StackName>promptops-test</StackName><StackStatus>CREATE_COMPLETE</StackStatus>
    <CreationTime>2024-01-01T00:00:00Z</CreationTime>
    <Outputs><member><OutputKey>TableName</OutputKey><OutputValue>${service.tableName}</OutputValue></member></Outputs>
  </member></Stacks></DescribeStacksResult>
</DescribeStacksResponse>`);
    });
  });
  await new Promise<void>((resolve) => cloudFormation.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  cloudFormation?.close();
  await service?.stop();
});

describe('npm run keys -- create --stack', () => {
  it('creates a working key in the table named by the stack output', async () => {
    describedStacks = [];
    const { stdout } = await run(
      process.execPath,
      keysCliArgs('create', '--workspace', 'from-stack', '--stack', 'promptops-test'),
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          TABLE_NAME: '',
          DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
          AWS_ENDPOINT_URL_CLOUDFORMATION: `http://127.0.0.1:${(cloudFormation.address() as AddressInfo).port}`,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        },
      },
    );
    expect(describedStacks).toEqual(['promptops-test']);
    const key = stdout.trim().split('\n').at(-1) ?? '';
    const created = await service.call('POST', '/log-request', { key, body: logRequestBody() });
    expect(created.status).toBe(201);
  }, 60_000);
});

describe('npm run keys: permissions and finding the local service', () => {
  /** Runs the CLI with no table named: it must find the service through a data directory. */
  async function keys(args: string[], env: Record<string, string> = {}) {
    return run(process.execPath, keysCliArgs(...args), {
      cwd: REPO_ROOT,
      env: { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', PROMPTOPS_DATA_DIR: '', ...env },
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  }
  /** A data directory as a running service leaves it: the endpoints file pointing at the test service. */
  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'promptops-keys-'));
    writeFileSync(
      join(dir, ENDPOINTS_FILE),
      JSON.stringify({ dynamodbEndpoint: service.dynamodbEndpoint, tableName: service.tableName }),
    );
    return dir;
  }

  it('prints its usage on --help, on stdout, and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const answer = (await keys([flag])) as { stdout: string; stderr: string; code?: number };
      expect(answer.code ?? 0).toBe(0);
      expect(answer.stdout).toContain('npm run keys -- create --workspace NAME');
      expect(answer.stdout).toContain('types: request_logs, prompts,');
      expect(answer.stderr).toBe('');
    }
  }, 60_000);

  it('says which data directory it looked in, and how to point it at another', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'promptops-keys-'));
    const answer = (await keys(['list', '--workspace', 'w'], { PROMPTOPS_DATA_DIR: empty })) as {
      code: number;
      stderr: string;
    };
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain(
      `No running local service found in data directory ${empty} (PROMPTOPS_DATA_DIR)`,
    );
    expect(answer.stderr).toContain('pass --data-dir DIR or set PROMPTOPS_DATA_DIR=DIR');
  }, 60_000);

  it('lists each key with its permissions; creates read-only and per-type keys that work as shown', async () => {
    const dir = dataDir();
    const full = await keys(['create', '--workspace', 'perm-ws', '--data-dir', dir]);
    const readOnly = await keys(['create', '--workspace', 'perm-ws', '--read-only'], {
      PROMPTOPS_DATA_DIR: dir,
    });
    const some = await keys(
      ['create', '--workspace', 'perm-ws', '--permissions', 'prompts:read,request_logs:edit'],
      {
        PROMPTOPS_DATA_DIR: dir,
      },
    );
    const keyOf = (out: unknown) => (out as { stdout: string }).stdout.trim().split('\n').at(-1) ?? '';
    expect((readOnly as { stdout: string }).stdout).toContain('read-only. The key is shown once');

    const listed = (await keys(['list', '--workspace', 'perm-ws', '--data-dir', dir])) as { stdout: string };
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => line.split('\t')[2])).toEqual([
      'full access',
      'read-only',
      'request_logs:edit,prompts:read',
    ]);

    const log = (key: string) => service.call('POST', '/log-request', { key, body: logRequestBody() });
    expect((await log(keyOf(full))).status).toBe(201);
    expect((await log(keyOf(readOnly))).status).toBe(403);
    expect((await log(keyOf(some))).status).toBe(201);
    expect((await service.call('GET', '/prompt-templates', { key: keyOf(some) })).status).toBe(200);
    expect((await service.call('GET', '/api/public/v2/datasets', { key: keyOf(some) })).status).toBe(403);
  }, 60_000);

  it("gives a new key's user an e-mail address, another key of that user the same one, and refuses others", async () => {
    const dir = dataDir();
    const run = (args: string[]) => keys(['--workspace', 'email-ws', '--data-dir', dir, ...args]);
    const failed = (out: unknown) => out as { code: number; stderr: string };
    const outOf = (out: unknown) => (out as { stdout: string }).stdout;

    const ada = outOf(await run(['create', '--email', 'Ada@Example.com']));
    expect(ada).toMatch(/for user \d+ <Ada@Example\.com>, full access\. The key is shown once/);
    const userId = /user (\d+) </.exec(ada)?.[1] ?? '';
    const again = outOf(await run(['create', '--user-id', userId, '--read-only']));
    expect(again).toContain(`for user ${userId} <Ada@Example.com>, read-only.`);
    expect(outOf(await run(['create', '--user-id', userId, '--email', 'ada@example.com']))).toContain(
      `for user ${userId} <Ada@Example.com>, full access.`,
    );
    const plain = outOf(await run(['create']));
    expect(plain).toMatch(/for user \d+ \(no e-mail\), full access\./);

    const other = failed(await run(['create', '--user-id', userId, '--email', 'bob@example.com']));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      `User ${userId} has the address Ada@Example.com; every key of a user carries the same one.`,
    );
    const unknown = failed(await run(['create', '--user-id', '999999999']));
    expect(unknown.stderr).toContain('No user 999999999 in this workspace.');
    const malformed = failed(await run(['create', '--email', 'ada@']));
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--email: "ada@" is not an e-mail address (at most 320 characters');

    const listed = outOf(await run(['list']))
      .trim()
      .split('\n');
    expect(listed.map((line) => line.split('\t')[3])).toEqual([
      `user ${userId} <Ada@Example.com>`,
      `user ${userId} <Ada@Example.com>`,
      `user ${userId} <Ada@Example.com>`,
      expect.stringMatching(/^user \d+ \(no e-mail\)$/),
    ]);

    // The address reaches the service: a workflow created with the key is found by it.
    const key = ada.trim().split('\n').at(-1) ?? '';
    const created = await service.call('POST', '/rest/workflows', { key, body: workflowBody('by-ada') });
    expect(created.status).toBe(201);
    const found = await service.call('GET', '/workflows', {
      key,
      query: { created_by_email: 'ADA@example.com' },
    });
    expect(found.body.items.map((item: { name: string }) => item.name)).toEqual(['by-ada']);
  }, 120_000);

  it('refuses a malformed --permissions, naming the types', async () => {
    const answer = (await keys(['create', '--workspace', 'w', '--permissions', 'prompts:write'], {
      PROMPTOPS_DATA_DIR: dataDir(),
    })) as { code: number; stderr: string };
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain('"prompts:write" is not a permission: write TYPE:read or TYPE:edit');
  }, 60_000);
});

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';
import { keysCliArgs } from '#test/support/keys-cli.ts';
import { logRequestBody } from '#test/support/local-service.ts';

/**
 * `npm start` as a user runs it: a separate process with a data directory, stopped by a signal and
 * started again; `npm run keys` against it.
 */
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'promptops-runtime-'));
const env = { ...process.env, PORT: '0', PROMPTOPS_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' };

interface Started {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  output: () => string;
}

function start(extraEnv: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, ['infra/local/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const key = /API key \(X-API-KEY\):\n(\S+)/.exec(out)?.[1];
      if (key)
        resolve({
          child,
          baseUrl: /listening on (\S+)/.exec(out)?.[1] ?? '',
          apiKey: key,
          output: () => out,
        });
    });
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

const post = (baseUrl: string, key: string, body: unknown) =>
  fetch(`${baseUrl}/log-request`, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start', () => {
  it('keeps its key and data across a restart and stops cleanly on SIGTERM and SIGINT', async () => {
    const first = await start();
    const created = await post(first.baseUrl, first.apiKey, logRequestBody({ tags: ['survives'] }));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect(await stop(first.child, 'SIGTERM')).toBe(0);

    const second = await start();
    expect(second.apiKey).toBe(first.apiKey);
    const read = await fetch(`${second.baseUrl}/api/public/v2/requests/${id}`, {
      headers: { 'X-API-KEY': second.apiKey },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { tags: string[] }).tags).toEqual(['survives']);
    expect(await stop(second.child, 'SIGINT')).toBe(0);
  }, 60_000);

  it('refuses to start with an invalid PROMPT_CACHE_TTL_SECONDS, naming it', async () => {
    const outcome = await start({ PROMPT_CACHE_TTL_SECONDS: 'ten' }).then(
      async (started) => {
        await stop(started.child, 'SIGTERM');
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(outcome).toMatch(/exited with 1: .*PROMPT_CACHE_TTL_SECONDS must be a number of seconds >= 0/s);
  }, 60_000);

  it('seeds PROMPTOPS_API_KEY and creates keys for other workspaces with npm run keys', async () => {
    const service = await start({ PROMPTOPS_API_KEY: 'pl_fixed-test-key' });
    try {
      expect(service.apiKey).toBe('pl_fixed-test-key');
      const { stdout } = await run(process.execPath, keysCliArgs('create', '--workspace', 'acme'), {
        cwd: REPO_ROOT,
        env,
      });
      const key = stdout.trim().split('\n').at(-1) ?? '';
      expect(key).toMatch(/^pl_/);
      const created = await post(service.baseUrl, key, logRequestBody());
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      // The new key's workspace is not the seeded one: the seeded key cannot see its log.
      const other = await fetch(`${service.baseUrl}/api/public/v2/requests/${id}`, {
        headers: { 'X-API-KEY': service.apiKey },
      });
      expect(other.status).toBe(404);

      const { stdout: listed } = await run(process.execPath, keysCliArgs('list', '--workspace', 'acme'), {
        cwd: REPO_ROOT,
        env,
      });
      expect(listed).toContain(key.slice(0, 7));
      expect(listed).not.toContain(key);

      // list and revoke of a workspace that does not exist fail, and do not create it.
      for (let attempt = 0; attempt < 2; attempt++) {
        const failed = await run(process.execPath, keysCliArgs('list', '--workspace', 'no-such-ws'), {
          cwd: REPO_ROOT,
          env,
        }).catch((error: { code: number; stderr: string }) => error);
        expect(failed).toMatchObject({
          code: 2,
          stderr: expect.stringContaining('No workspace "no-such-ws"'),
        });
      }
    } finally {
      await stop(service.child, 'SIGTERM');
    }
  }, 60_000);
});

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PID_FILE } from '#infra/local/preflight.ts';
import { REPO_ROOT } from '#infra/local/service.ts';

/**
 * `npm start` with a bad setting, as a new user meets it: each is a child process that exits 1 with one
 * line saying what to do, before any emulator starts (so in well under the 15-20 s of a first start).
 */
function start(env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptops-start-'));
  const child = spawnSync(process.execPath, ['infra/local/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PROMPTOPS_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: child.status, stderr: child.stderr, stdout: child.stdout };
}

let busy: Server;
let busyPort: number;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

describe('npm start refuses a bad start in one line', () => {
  it.each([
    [
      { PORT: 'abc' },
      'promptops: PORT=abc is not a port number: give one from 1 to 65535 (0 picks a free one), or unset it for 3000',
    ],
    [
      { PORT: '70000' },
      'promptops: PORT=70000 is not a port number: give one from 1 to 65535 (0 picks a free one), or unset it for 3000',
    ],
    [
      { PROMPT_CACHE_TTL_SECONDS: 'soon' },
      'promptops: PROMPT_CACHE_TTL_SECONDS must be a number of seconds >= 0 (0 switches the cache off), got "soon"',
    ],
  ])('%j', (env, line) => {
    const { status, stderr, stdout } = start(env);
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(line);
    expect(stdout).not.toContain('starting DynamoDB');
  });

  it('a port in use names the port and PORT', () => {
    const { status, stderr } = start({ PORT: String(busyPort) });
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(`promptops: port ${busyPort} is in use: stop the other process or set PORT`);
  });

  it('a data directory in use by a running promptops names its pid, and is left to it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'promptops-locked-'));
    // This test's own process stands for the running service.
    writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`);
    const { status, stderr } = start({ PROMPTOPS_DATA_DIR: dataDir, PORT: '0' });
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(
      `promptops: another promptops is running on this data directory (${dataDir}), pid ${process.pid}: stop it, or set PROMPTOPS_DATA_DIR to another directory`,
    );
    expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toBe(String(process.pid));
  });
});

describe('npm start stops', () => {
  it('logs one access line per request, and stops on a SIGINT sent to npm (what a process manager does)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'promptops-sigint-'));
    const npm = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PROMPTOPS_DATA_DIR: dataDir, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that a failed test can end npm, the service and the emulators at once.
      detached: true,
    });
    onTestFinished(() => {
      try {
        process.kill(-(npm.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      npm.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('API key (X-API-KEY):')) resolve();
      });
      npm.once('exit', () => reject(new Error(`npm start ended before it listened:\n${output}`)));
    });
    expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toMatch(/^\d+$/);

    // One access-log line per request, as API Gateway's: its id, method, path, status and latency,
    // never the key, the query or the body.
    const baseUrl = /listening on (\S+)/.exec(output)?.[1] ?? '';
    const key = output.trim().split('\n').at(-1) ?? '';
    const answer = await fetch(`${baseUrl}/api/public/v2/requests/999999?token=query-secret`, {
      headers: { 'X-API-KEY': key },
    });
    expect(answer.status).toBe(404);
    const requestId = answer.headers.get('x-amzn-requestid');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => output).toContain(requestId);
    const line = output.split('\n').find((text) => text.includes(requestId as string)) ?? '';
    expect(JSON.parse(line)).toEqual({
      level: 'INFO',
      message: 'access',
      requestId,
      method: 'GET',
      path: '/api/public/v2/requests/999999',
      status: 404,
      latencyMs: expect.any(Number),
    });
    // The banner prints the key once; after it, no line does.
    const afterBanner = output.slice(output.indexOf(key) + key.length);
    expect(afterBanner).not.toContain(key);
    expect(output).not.toContain('query-secret');
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    npm.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGINT: stopping');
    // The data directory is free again: the service took its lock away as it stopped.
    expect(() => readFileSync(join(dataDir, PID_FILE))).toThrow();
  }, 60_000);
});

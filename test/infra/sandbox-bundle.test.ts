import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions, SANDBOX_WASM_FILE, sandboxAssetCommands } from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';
import { SANDBOX_WORKER_BUNDLE } from '#shared/sandbox/host.ts';

/**
 * A function that runs the sandbox, bundled as the stack bundles it: the project's esbuild settings
 * for `index.mjs`, then the very commands of the NodejsFunction's `afterBundling` hook (the worker
 * thread's bundle and the QuickJS `.wasm`). The asset is then run with plain `node` in a temporary
 * directory, where no node_modules can be reached: what works here works in Lambda.
 */
const outDir = mkdtempSync(join(tmpdir(), 'promptops-sandbox-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('sandbox bundling', () => {
  it('runs user code from the bundled asset alone', async () => {
    await build(
      esbuildOptions(join(REPO_ROOT, 'test/support/sandbox-bundle-entry.ts'), join(outDir, 'index.mjs')),
    );
    for (const command of sandboxAssetCommands(REPO_ROOT, outDir)) {
      execFileSync('bash', ['-c', command], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    }
    expect(readdirSync(outDir).sort()).toEqual(
      [
        'index.mjs',
        'index.mjs.map',
        SANDBOX_WASM_FILE,
        SANDBOX_WORKER_BUNDLE,
        `${SANDBOX_WORKER_BUNDLE}.map`,
      ].sort(),
    );
    expect(existsSync(join(outDir, 'node_modules'))).toBe(false);

    const script = `
      const reachable = await import('quickjs-emscripten-core').then(() => true, () => false);
      const { handler } = await import('./index.mjs');
      process.stdout.write(JSON.stringify({ reachable, ...(await handler()) }));
    `;
    // No process.exit: the process must end by itself, its idle warm thread notwithstanding.
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 20_000,
      cwd: outDir,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    expect(JSON.parse(output)).toEqual({
      reachable: false,
      sum: { value: 3 },
      globals: { value: ['undefined', 'undefined', 'undefined', 'undefined'] },
      loop: { error: 'timed out after 1000 ms' },
      afterLoop: { value: 'still working' },
      regex: { ok: false, reason: 'timeout', error: 'timed out after 200 ms' },
    });
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  esbuildOptions,
  SANDBOX_WASM_FILE,
  SANDBOX_WASM_SOURCE,
  sandboxAssetCommands,
} from '#infra/bundling.ts';
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
  it('copies the WebAssembly file the QuickJS package exports', () => {
    const exported = createRequire(join(REPO_ROOT, 'package.json')).resolve(
      '@jitl/quickjs-ng-wasmfile-release-sync/wasm',
    );
    expect(exported.endsWith(SANDBOX_WASM_SOURCE.replace(/^node_modules/, ''))).toBe(true);
  });

  it('gives a sandbox: true row the hook (rendered for Docker too, where the root is /asset-input)', async () => {
    const { App, Stack } = await import('aws-cdk-lib');
    const { AttributeType, Table } = await import('aws-cdk-lib/aws-dynamodb');
    const { EventBus } = await import('aws-cdk-lib/aws-events');
    const { Bucket } = await import('aws-cdk-lib/aws-s3');
    const { Secret } = await import('aws-cdk-lib/aws-secretsmanager');
    const { ServiceFunction } = await import('#infra/constructs/service-function.ts');
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'SandboxRow');
    const fn = new ServiceFunction(stack, 'Fn', {
      root: REPO_ROOT,
      entry: 'test/support/sandbox-bundle-entry.ts',
      description: 'a function that runs the sandbox',
      access: { table: 'read', sandbox: true },
      resources: {
        table: new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
        bucket: new Bucket(stack, 'Bucket'),
        eventBus: new EventBus(stack, 'Bus'),
        queues: new Map(),
        masterKey: new Secret(stack, 'Key'),
        providerCredentials: new Secret(stack, 'ProviderCredentials'),
      },
      invocation: { kind: 'api' },
    });
    expect(fn.fn.runtime.name).toBe('nodejs24.x');
    expect(sandboxAssetCommands('/asset-input', '/asset-output')[1]).toBe(
      `'cp' '/asset-input/${SANDBOX_WASM_SOURCE}' '/asset-output/${SANDBOX_WASM_FILE}'`,
    );
  });

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
      globals: { value: ['object', 'undefined', 'undefined', 'undefined'] },
      loop: { error: 'timed out after 1000 ms' },
      afterLoop: { value: 'still working' },
      regex: { ok: false, reason: 'timeout', error: 'timed out after 200 ms' },
    });
  });
});

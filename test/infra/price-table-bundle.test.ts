import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  esbuildOptions,
  lambdaBundling,
  PRICE_TABLE_ENTRY,
  priceTableAssetCommands,
  sandboxLambdaBundling,
} from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';
import { PRICE_TABLE_PACKAGE, PRICE_TABLE_SOURCE } from '#shared/costs/price-table.ts';

/**
 * The price table is external to every bundle and copied beside the bundles that import it (docs/cost.md):
 * functions are bundled as the stack bundles them, then the very commands of the `afterBundling` hook run.
 * Assets live in a temporary directory, where no node_modules of the repository can be reached.
 */
const outDir = mkdtempSync(join(tmpdir(), 'promptops-price-table-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function bundle(entry: string): Promise<string> {
  const dir = join(outDir, entry.replace(/[/.]/g, '_'));
  mkdirSync(dir, { recursive: true });
  await build(esbuildOptions(join(REPO_ROOT, entry), join(dir, 'index.mjs')));
  for (const command of priceTableAssetCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return dir;
}

const tableIn = (dir: string) => join(dir, 'node_modules', PRICE_TABLE_PACKAGE);

describe('the price table beside the bundles that price', () => {
  it('log-request: the table is beside its bundle, not in it (the bundle stays under 200 KB)', async () => {
    const dir = await bundle('functions/http/log-request.ts');
    expect(readdirSync(tableIn(dir)).sort()).toEqual(['LICENSE', 'dist', 'package.json']);
    expect(statSync(join(tableIn(dir), PRICE_TABLE_ENTRY)).size).toBeGreaterThan(300 * 1024);
    expect(statSync(join(dir, 'index.mjs')).size).toBeLessThan(200 * 1024);
  });

  it('an unrelated function (a prompt read) gets nothing', async () => {
    const dir = await bundle('functions/http/prompt-template-get.ts');
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
  });

  it('a function that prices finds the table from its asset alone', async () => {
    const dir = await bundle('test/support/price-table-bundle-entry.ts');
    const script = `
      const reachable = await import(${JSON.stringify(PRICE_TABLE_PACKAGE)}).then(() => true, () => false);
      const { handler } = await import('./index.mjs');
      process.stdout.write(JSON.stringify({ reachable, cost: await handler() }));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 20_000,
      cwd: dir,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    expect(JSON.parse(output)).toEqual({
      reachable: true,
      cost: expect.objectContaining({ total: 11.875, source: PRICE_TABLE_SOURCE, priced_as: 'gpt-4o' }),
    });
  });

  it('every NodejsFunction runs the copy after bundling, the sandbox functions too', () => {
    const [copy] = priceTableAssetCommands('/asset-input', '/asset-output');
    for (const bundling of [lambdaBundling, sandboxLambdaBundling]) {
      expect(bundling.externalModules).toContain(PRICE_TABLE_PACKAGE);
      expect(bundling.commandHooks?.afterBundling('/asset-input', '/asset-output')).toContain(copy);
    }
    expect(copy).toMatch(/^if 'grep' '-qF' '@pydantic\/genai-prices' '\/asset-output\/index\.mjs'; then /);
  });
});

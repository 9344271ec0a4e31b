import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  esbuildOptions,
  lambdaBundling,
  ON_DEMAND_PACKAGES,
  onDemandPackageCommands,
  PRICE_TABLE_ENTRY,
  sandboxLambdaBundling,
} from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';
import { PRICE_TABLE_PACKAGE, PRICE_TABLE_SOURCE } from '#shared/costs/price-table.ts';
import { JINJA_PACKAGE } from '#shared/prompts/render/jinja.ts';
import { JSON_PATH_PACKAGE } from '#shared/workflows/nodes/values.ts';

/**
 * The packages imported on demand (the price table, docs/cost.md; Jinja, JSONPath, busboy, yauzl) are external to
 * every bundle and copied beside the bundles that name them: functions are bundled as the stack bundles
 * them, then the very commands of the `afterBundling` hook run. Assets live in a temporary directory,
 * where no node_modules of the repository can be reached.
 */
const outDir = mkdtempSync(join(tmpdir(), 'promptops-on-demand-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function bundle(entry: string): Promise<string> {
  const dir = join(outDir, entry.replace(/[/.]/g, '_'));
  mkdirSync(dir, { recursive: true });
  await build(esbuildOptions(join(REPO_ROOT, entry), join(dir, 'index.mjs')));
  for (const command of onDemandPackageCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return dir;
}

const packageIn = (dir: string, name: string) => join(dir, 'node_modules', name);
const tableIn = (dir: string) => packageIn(dir, PRICE_TABLE_PACKAGE);

/** Runs the bundle's `handler` with nothing but its asset around it (no node_modules of the repository). */
function runFromAsset(dir: string, script: string): unknown {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 20_000,
    cwd: dir,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).toString();
  return JSON.parse(output);
}

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
    expect(runFromAsset(dir, script)).toEqual({
      reachable: true,
      cost: expect.objectContaining({ total: 11.875, source: PRICE_TABLE_SOURCE, priced_as: 'gpt-4o' }),
    });
  });

  it('every NodejsFunction runs the copies after bundling, the sandbox functions too', () => {
    const copies = onDemandPackageCommands('/asset-input', '/asset-output');
    expect(copies).toHaveLength(ON_DEMAND_PACKAGES.length);
    for (const bundling of [lambdaBundling, sandboxLambdaBundling]) {
      for (const { name } of ON_DEMAND_PACKAGES) expect(bundling.externalModules).toContain(name);
      const hook = bundling.commandHooks?.afterBundling('/asset-input', '/asset-output');
      for (const copy of copies) expect(hook).toContain(copy);
    }
    expect(copies[0]).toMatch(
      /^if 'grep' '-qF' '@pydantic\/genai-prices' '\/asset-output\/index\.mjs'; then /,
    );
  });
});

describe('Jinja, JSONPath, busboy and yauzl beside the bundles that use them', () => {
  it('a prompt render: the interpreter is beside its bundle, not in it; a prompt read gets nothing', async () => {
    const dir = await bundle('functions/http/prompt-template-render.ts');
    expect(readdirSync(packageIn(dir, JINJA_PACKAGE)).sort()).toEqual(['LICENSE', 'dist', 'package.json']);
    expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).not.toContain('Unknown statement type');
    const read = await bundle('functions/http/prompt-template-get.ts');
    expect(existsSync(packageIn(read, JINJA_PACKAGE))).toBe(false);
  });

  it('workflow create: JSONPath (its configurations may hold paths) is beside its bundle, not in it', async () => {
    const dir = await bundle('functions/http/workflow-create.ts');
    expect(readdirSync(packageIn(dir, JSON_PATH_PACKAGE)).sort()).toEqual([
      'LICENSE',
      'dist',
      'package.json',
    ]);
    expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).not.toContain('Unknown function argument type');
  });

  it('a function that renders jinja2, evaluates a JSONPath, parses multipart and reads a ZIP finds all four from its asset alone', async () => {
    const dir = await bundle('test/support/on-demand-bundle-entry.ts');
    const script = `const { handler } = await import('./index.mjs'); process.stdout.write(JSON.stringify(await handler()));`;
    expect(runFromAsset(dir, script)).toEqual({
      rendered: { type: 'text', text: 'A;B;' },
      matches: [2],
      fields: { metadata: '{"name":"x"}' },
      files: [{ path: 'notes.md', content: 'hello' }],
    });
  });
});

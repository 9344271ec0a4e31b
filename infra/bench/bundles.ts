import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { SANDBOX_WORKER_BUNDLE } from '#shared/sandbox/host.ts';
import {
  esbuildOptions,
  ON_DEMAND_PACKAGES,
  OPENAPI_ASSET_FILE,
  onDemandPackageCommands,
  openApiAssetCommands,
  SANDBOX_WASM_FILE,
  sandboxAssetCommands,
} from '../bundling.ts';
import { REPO_ROOT } from '../local/service.ts';
import { AUTHORIZER_HANDLER, JOB_QUEUES, ROUTES } from '../routes.ts';
import { type BenchRow, fmt } from './support.ts';

/**
 * Every function bundled exactly as the stack bundles it (infra/bundling.ts), its minified size, and
 * the time a fresh `node` process takes to import it (the init phase of a cold start, less the runtime's
 * own start). Bundles are written inside the repository so the external AWS SDK resolves from
 * node_modules, as it resolves from the runtime in Lambda.
 */
const TARGETS_KB: Record<string, number> = {
  [AUTHORIZER_HANDLER]: 150,
  'functions/http/log-request.ts': 200,
  'functions/http/track-request.ts': 200,
};
/** Every other function (issue 23: zod/mini and import cuts); the HTTP functions' median has its own. */
const DEFAULT_TARGET_KB = 250;
const HTTP_MEDIAN_TARGET_KB = 120;

export async function benchBundles(): Promise<BenchRow[]> {
  const outDir = join(REPO_ROOT, '.bench', 'bundles');
  rmSync(outDir, { recursive: true, force: true });
  const entries = [
    AUTHORIZER_HANDLER,
    ...new Set([
      ...ROUTES.map((route) => route.handler),
      ...Object.values(JOB_QUEUES).map((queue) => queue.worker),
    ]),
  ];
  // Functions whose row runs the sandbox carry its worker thread and WebAssembly beside the bundle.
  const sandboxed = new Set(
    [
      ...ROUTES.map((route) => [route.handler, route] as const),
      ...Object.values(JOB_QUEUES).map((queue) => [queue.worker, queue] as const),
    ]
      .filter(([, row]) => row.sandbox)
      .map(([entry]) => entry),
  );
  const documentServers = new Set(
    ROUTES.filter((route) => route.site === 'openapi').map((route) => route.handler),
  );
  const rows: BenchRow[] = [await benchSandboxAssets(join(outDir, 'sandbox'))];
  const http: { kb: number; loadMs: number }[] = [];
  for (const entry of entries) {
    const name = entry.replace(/^functions\//, '').replace(/\.ts$/, '');
    const outfile = join(outDir, name, 'index.mjs');
    mkdirSync(join(outDir, name), { recursive: true });
    await build(esbuildOptions(join(REPO_ROOT, entry), outfile));
    // The document's function reads its file at import: write it first, as its `afterBundling` hook does.
    const documentAsset = documentServers.has(entry) ? openApiDocumentSize(join(outDir, name)) : '';
    const kb = statSync(outfile).size / 1024;
    const loadMs = importTime(outfile);
    const target = TARGETS_KB[entry] ?? DEFAULT_TARGET_KB;
    if (entry.startsWith('functions/http/')) http.push({ kb, loadMs });
    const assets =
      (sandboxed.has(entry) ? ` (+ sandbox: ${sandboxSizes(join(outDir, name))})` : '') +
      onDemandPackageSizes(join(outDir, name)) +
      documentAsset;
    rows.push({
      name: `bundle ${name}`,
      value: `${fmt(kb, 1)} KB, import ${fmt(loadMs, 1)} ms${assets}`,
      target: `< ${target} KB${sandboxed.has(entry) ? ' + sandbox' : ''}`,
    });
  }
  rows.push({
    name: `bundle median of the ${http.length} HTTP functions`,
    value: `${fmt(median(http.map((row) => row.kb)), 1)} KB, import ${fmt(median(http.map((row) => row.loadMs)), 1)} ms`,
    target: `< ${HTTP_MEDIAN_TARGET_KB} KB`,
  });
  return [...rows, ...(await benchStackSizes())];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The on-demand packages beside a bundle that names them, as every row's `afterBundling` hook writes them. */
function onDemandPackageSizes(dir: string): string {
  for (const command of onDemandPackageCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT });
  return ON_DEMAND_PACKAGES.map(({ name }) => [name, join(dir, 'node_modules', name)] as const)
    .filter(([, packageDir]) => existsSync(packageDir))
    .map(([name, packageDir]) => ` (+ on demand: ${name} ${fmt(directoryBytes(packageDir) / 1024, 1)} KB)`)
    .join('');
}

/** The bytes of the JavaScript files under `dir`. */
function directoryBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

/** The published OpenAPI document beside its function's bundle, as its `afterBundling` hook writes it. */
function openApiDocumentSize(dir: string): string {
  for (const command of openApiAssetCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT });
  return ` (+ document: ${fmt(statSync(join(dir, OPENAPI_ASSET_FILE)).size / 1024, 1)} KB)`;
}

/** The sandbox's files, as the `afterBundling` hook of a `sandbox: true` row writes them into `dir`. */
function writeSandboxAssets(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const command of sandboxAssetCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT });
}

function sandboxSizes(dir: string): string {
  writeSandboxAssets(dir);
  const kb = (file: string) => fmt(statSync(join(dir, file)).size / 1024, 1);
  return `worker ${kb(SANDBOX_WORKER_BUNDLE)} KB, wasm ${kb(SANDBOX_WASM_FILE)} KB`;
}

async function benchSandboxAssets(dir: string): Promise<BenchRow> {
  return { name: 'bundle sandbox files (per sandbox: true row)', value: sandboxSizes(dir), target: '' };
}

/**
 * The resources of the stack and of each nested stack, against the budget the CDK tests hold them to
 * (CloudFormation refuses a stack over 500). Synthesized without bundling: the count does not depend on it.
 */
async function benchStackSizes(): Promise<BenchRow[]> {
  const { App } = await import('aws-cdk-lib');
  const { PromptopsStack } = await import('../stack.ts');
  const { STACK_RESOURCE_BUDGET, stackSizes } = await import('../constructs/stack-size.ts');
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PromptopsStack(app, 'promptops-bench', { stage: 'bench' });
  return stackSizes(stack).map(({ stack: path, resources }) => ({
    name: `stack ${path.replace(/^promptops-bench/, 'root').replace(/^root\//, '')}`,
    value: `${resources} resources`,
    target: `<= ${STACK_RESOURCE_BUDGET}`,
  }));
}

/** Median of five imports, each in a fresh process. */
function importTime(file: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(`file://${file}`)});process.stdout.write(String(performance.now()-t))`;
  const runs = Array.from({ length: 5 }, () =>
    Number(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, TABLE_NAME: 'bench', BUCKET_NAME: 'bench', AWS_REGION: 'us-east-1' },
      }).toString(),
    ),
  );
  return runs.sort((a, b) => a - b)[2] ?? Number.NaN;
}

/**
 * How every function is bundled, spelled once. The CDK stack hands `lambdaBundling` to each
 * NodejsFunction; the bench (`npm run bench`) calls `esbuildOptions()` to build the very same bundles
 * locally and print their sizes. Both are derived from `BUNDLE` below, so they cannot drift apart.
 */
import { join } from 'node:path';
import { type BundlingOptions, type ICommandHooks, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { PRICE_TABLE_PACKAGE } from '#shared/costs/price-table.ts';
import { MULTIPART_PARSER_PACKAGE } from '#shared/platform/multipart-parse.ts';
import { JINJA_PACKAGE } from '#shared/prompts/render/jinja.ts';
import { SANDBOX_WORKER_BUNDLE, SANDBOX_WORKER_SOURCE } from '#shared/sandbox/host.ts';
import { ZIP_READER_PACKAGE } from '#shared/skills/archive.ts';
import { JSON_PATH_PACKAGE } from '#shared/workflows/nodes/values.ts';
import type { ResourceAccess } from './route-types.ts';

/**
 * ESM output needs a `require` for the CommonJS dependencies esbuild inlines (they call `require('fs')`
 * and friends); Node's `createRequire` provides one. The alias avoids clashing with bundled names.
 */
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __promptopsCreateRequire } from 'node:module'; const require = __promptopsCreateRequire(import.meta.url);";

/**
 * Packages external to every bundle and imported on demand (a dynamic `import()` on first use, once per
 * container), so a function pays for one only on the calls that need it: each is copied beside the
 * bundles that name it, as `node_modules/<name>/` (its manifest, its licence, and its entry files
 * bundled and minified by esbuild, at the paths the manifest's exports name), where Node resolves the
 * bundle's `import()`. A bundle that does not mention a package gets nothing of it. Locally (`npm start`,
 * the tests) the imports resolve from node_modules.
 * - the price table (`@pydantic/genai-prices`, ~480 KB minified): the functions that price (docs/cost.md);
 * - the Jinja interpreter (`@huggingface/jinja`, 46 KB): rendering a jinja2 prompt template;
 * - JSONPath (`jsonpath-rfc9535`, 32 KB): a `json_path` of a node configuration or an edge conditional;
 * - the multipart parser (`busboy`, 23 KB) and the ZIP reader (`yauzl`, 23 KB): a skill collection sent as a ZIP.
 */
export interface OnDemandPackage {
  name: string;
  /** Its entry files, relative to the package: the ones its manifest exports to `import` (or `main`). */
  entries: readonly string[];
  /** The module format of those files: CommonJS for a package that publishes only CommonJS. */
  format: 'esm' | 'cjs';
}

export const PRICE_TABLE_ENTRY = 'dist/index.js';

export const ON_DEMAND_PACKAGES: readonly OnDemandPackage[] = [
  { name: PRICE_TABLE_PACKAGE, entries: [PRICE_TABLE_ENTRY], format: 'esm' },
  { name: JINJA_PACKAGE, entries: ['dist/index.js'], format: 'esm' },
  { name: JSON_PATH_PACKAGE, entries: ['dist/esm/index.js', 'dist/esm/parser/index.js'], format: 'esm' },
  { name: MULTIPART_PARSER_PACKAGE, entries: ['lib/index.js'], format: 'cjs' },
  { name: ZIP_READER_PACKAGE, entries: ['index.js'], format: 'cjs' },
];

export const BUNDLE = {
  /** The Lambda runtime (Node.js 24). */
  target: 'node24',
  format: 'esm',
  /** The handler file inside the asset: `index.mjs` exporting `handler`. */
  outputFile: 'index.mjs',
  minify: true,
  treeShaking: true,
  /** A separate `.mjs.map`, read by `--enable-source-maps`; sources are not embedded (smaller asset). */
  sourceMap: true,
  sourcesContent: false,
  /** Prefer the ESM build of dependencies: it tree-shakes better. */
  mainFields: ['module', 'main'],
  /**
   * `yaml` (the skill functions' front matter) publishes CommonJS under Node's export condition, never
   * tree-shaken (112 KB), and the same code as ESM for every other platform (97 KB): the ESM build is
   * bundled. It differs only where it reaches for Node (`process.emitWarning`, Buffer for YAML 1.1
   * binary tags), which the YAML 1.2 core schema the front matter is parsed with never uses. Relative to
   * the repository root, where the stack, the bench and the tests run esbuild.
   */
  alias: { yaml: './node_modules/yaml/browser/index.js' },
  /**
   * The Lambda Node.js 24 runtime ships the AWS SDK v3 clients and the DynamoDB document client: leaving
   * them out is what keeps the bundles small (bundling them adds 300-550 KB to each function). Helper
   * packages the runtime is not guaranteed to carry (the S3 presigner and the Smithy pieces it needs) are
   * bundled, by the few functions that import them. The packages imported on demand are copied beside
   * the bundles that use them (`ON_DEMAND_PACKAGES`); a package name covers its subpaths
   * (`jsonpath-rfc9535/parser`).
   */
  external: ['@aws-sdk/client-*', '@aws-sdk/lib-dynamodb', ...ON_DEMAND_PACKAGES.map(({ name }) => name)],
  banner: CREATE_REQUIRE_BANNER,
  /** Functions set this so stack traces point into the TypeScript sources. */
  nodeOptions: '--enable-source-maps',
} as const;

/**
 * One shell command per on-demand package (run by bash, from `inputDir`, the repository root) that
 * copies it into `outputDir` when the bundle there names it. The stack runs them as every
 * NodejsFunction's `afterBundling` hook; the bench and the bundle tests run the very same.
 */
export function onDemandPackageCommands(inputDir: string, outputDir: string): string[] {
  const esbuild = join(inputDir, 'node_modules', '.bin', 'esbuild');
  return ON_DEMAND_PACKAGES.map(({ name, entries, format }) => {
    const source = join(inputDir, 'node_modules', name);
    const target = join(outputDir, 'node_modules', name);
    const copy = [
      ['mkdir', '-p', target],
      ['cp', join(source, 'package.json'), join(source, 'LICENSE'), target],
      [
        esbuild,
        ...entries.map((entry) => join(source, entry)),
        '--bundle',
        // Entries sharing code (JSONPath's query and parser) share one chunk (ESM only).
        ...(format === 'esm' ? ['--splitting'] : []),
        '--platform=node',
        '--minify',
        `--format=${format}`,
        `--target=${BUNDLE.target}`,
        '--log-level=warning',
        `--outbase=${source}`,
        '--chunk-names=dist/[name]-[hash]',
        `--outdir=${target}`,
      ],
    ];
    const uses = ['grep', '-qF', name, join(outputDir, BUNDLE.outputFile)];
    return `if ${uses.map(shellQuote).join(' ')}; then ${copy.map((command) => command.map(shellQuote).join(' ')).join(' && ')}; fi`;
  });
}

const afterBundling = (extra: (inputDir: string, outputDir: string) => string[]): ICommandHooks => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir, outputDir) => [
    ...onDemandPackageCommands(inputDir, outputDir),
    ...extra(inputDir, outputDir),
  ],
});

/** NodejsFunction bundling: local esbuild (a devDependency), never Docker. */
export const lambdaBundling: BundlingOptions = {
  format: OutputFormat.ESM,
  target: BUNDLE.target,
  minify: BUNDLE.minify,
  sourceMap: BUNDLE.sourceMap,
  sourcesContent: BUNDLE.sourcesContent,
  mainFields: [...BUNDLE.mainFields],
  externalModules: [...BUNDLE.external],
  banner: BUNDLE.banner,
  esbuildArgs: {
    '--tree-shaking': String(BUNDLE.treeShaking),
    ...Object.fromEntries(Object.entries(BUNDLE.alias).map(([name, path]) => [`--alias:${name}`, path])),
  },
  forceDockerBundling: false,
  commandHooks: afterBundling(() => []),
};

/**
 * Plain esbuild options equivalent to `lambdaBundling`, for building one function's bundle outside CDK
 * (the bench). `outfile` should end with `BUNDLE.outputFile`'s extension, `.mjs`.
 */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: BUNDLE.format,
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    treeShaking: BUNDLE.treeShaking,
    sourcemap: BUNDLE.sourceMap,
    sourcesContent: BUNDLE.sourcesContent,
    mainFields: [...BUNDLE.mainFields],
    alias: { ...BUNDLE.alias },
    external: [...BUNDLE.external],
    banner: { js: BUNDLE.banner },
    logLevel: 'warning',
  };
}

/**
 * A function that runs the sandbox (its row says `sandbox: true`) needs two files beside its
 * `index.mjs`: the worker thread's own bundle (`sandbox-worker.mjs`, built from
 * shared/sandbox/worker.ts with the settings above) and the QuickJS WebAssembly file it loads from its
 * own directory. `sandboxAssetCommands` spells the shell commands that put them there; the stack runs
 * them as the NodejsFunction's `afterBundling` hook, and the bench and the bundle test run the very same.
 */
export const SANDBOX_WASM_FILE = 'emscripten-module.wasm';

/**
 * The QuickJS `.wasm` of the variant package, relative to the repository root (the package's `./wasm`
 * export). Spelled, not resolved: the hook is also rendered for Docker bundling, where the root is
 * `/asset-input`.
 */
export const SANDBOX_WASM_SOURCE = `node_modules/@jitl/quickjs-ng-wasmfile-release-sync/dist/${SANDBOX_WASM_FILE}`;

/** Shell commands (run by bash, from `inputDir`, the repository root) that write the sandbox's files into `outputDir`. */
export function sandboxAssetCommands(inputDir: string, outputDir: string): string[] {
  const esbuild = join(inputDir, 'node_modules', '.bin', 'esbuild');
  const args = [
    join(inputDir, SANDBOX_WORKER_SOURCE),
    '--bundle',
    '--platform=node',
    `--format=${BUNDLE.format}`,
    `--target=${BUNDLE.target}`,
    ...(BUNDLE.minify ? ['--minify'] : []),
    `--tree-shaking=${BUNDLE.treeShaking}`,
    ...(BUNDLE.sourceMap ? ['--sourcemap'] : []),
    `--sources-content=${BUNDLE.sourcesContent}`,
    `--main-fields=${BUNDLE.mainFields.join(',')}`,
    ...BUNDLE.external.map((name) => `--external:${name}`),
    `--banner:js=${BUNDLE.banner}`,
    '--log-level=warning',
    `--outfile=${join(outputDir, SANDBOX_WORKER_BUNDLE)}`,
  ];
  return [
    [esbuild, ...args].map(shellQuote).join(' '),
    ['cp', join(inputDir, SANDBOX_WASM_SOURCE), join(outputDir, SANDBOX_WASM_FILE)].map(shellQuote).join(' '),
  ];
}

/** The bundling of a function whose row says `sandbox: true`: the usual one, plus the sandbox's files. */
export const sandboxLambdaBundling: BundlingOptions = {
  ...lambdaBundling,
  commandHooks: afterBundling(sandboxAssetCommands),
};

/**
 * The dashboard's serving function (its row says `site: 'dashboard'`) carries the built dashboard beside its
 * `index.mjs`, as `ui/` (index.html, assets/): ui/build.ts builds it straight there, so a synth on a
 * fresh clone needs no earlier step.
 */
export const SITE_ASSET_DIR = 'ui';

export function siteAssetCommands(inputDir: string, outputDir: string): string[] {
  const tsx = join(inputDir, 'node_modules', '.bin', 'tsx');
  return [[tsx, join(inputDir, 'ui', 'build.ts'), join(outputDir, SITE_ASSET_DIR)].map(shellQuote).join(' ')];
}

export const siteLambdaBundling: BundlingOptions = {
  ...lambdaBundling,
  commandHooks: afterBundling(siteAssetCommands),
};

/**
 * The OpenAPI document's serving function (its row says `site: 'openapi'`) carries the document beside
 * its `index.mjs`, as `openapi.json`: the committed docs/openapi.json as the stage publishes it
 * (infra/openapi/publish.ts), never generated from the handlers at run time.
 */
export const OPENAPI_ASSET_FILE = 'openapi.json';

export function openApiAssetCommands(inputDir: string, outputDir: string): string[] {
  const tsx = join(inputDir, 'node_modules', '.bin', 'tsx');
  const publish = join(inputDir, 'infra', 'openapi', 'publish.ts');
  return [[tsx, publish, join(outputDir, OPENAPI_ASSET_FILE)].map(shellQuote).join(' ')];
}

export const openApiLambdaBundling: BundlingOptions = {
  ...lambdaBundling,
  commandHooks: afterBundling(openApiAssetCommands),
};

/** The bundling of a function, by what its row says travels beside the bundle. */
export function bundlingOf(access: Pick<ResourceAccess, 'sandbox' | 'site'>): BundlingOptions {
  if (access.sandbox) return sandboxLambdaBundling;
  if (access.site === 'dashboard') return siteLambdaBundling;
  if (access.site === 'openapi') return openApiLambdaBundling;
  return lambdaBundling;
}

const shellQuote = (arg: string): string => `'${arg.replaceAll("'", `'\\''`)}'`;

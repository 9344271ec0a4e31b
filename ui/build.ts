/**
 * Builds the dashboard with the repository's esbuild: ESM with code splitting (one lazy chunk per
 * screen), hashed file names, minified, and esbuild's metafile in `dist/meta.json` (the budget test and
 * `npm run bench -- ui` read it). Output: `ui/dist/index.html` and `ui/dist/assets/*`.
 *
 * `npm run ui:build` runs it; the local service (`npm start`, the tests) calls `ensureUiBuilt()`, which
 * builds only when `dist` is missing or older than a source file; CDK bundling copies `dist` into the
 * serving function's asset.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

export const UI_ROOT = dirname(fileURLToPath(import.meta.url));
export const UI_DIST = join(UI_ROOT, 'dist');
export const UI_ASSETS_DIR = 'assets';
export const UI_META_FILE = 'meta.json';
/** In index.html, where the relative path to the assets goes: the server fills it in per request depth. */
export const ASSETS_PLACEHOLDER = '%ASSETS%';
const ENTRY = join(UI_ROOT, 'src', 'main.tsx');

export interface UiBuild {
  metafile: Metafile;
  /** The entry's script and stylesheet, relative to `dist/assets`. */
  script: string;
  stylesheet: string | undefined;
}

export async function buildUi(outdir = UI_DIST): Promise<UiBuild> {
  rmSync(outdir, { recursive: true, force: true });
  const assets = join(outdir, UI_ASSETS_DIR);
  const result = await build({
    entryPoints: [ENTRY],
    outdir: assets,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    minify: true,
    treeShaking: true,
    sourcemap: false,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(
    ([, output]) => output.entryPoint && join(process.cwd(), output.entryPoint) === ENTRY,
  );
  if (!entry) throw new Error('esbuild produced no output for ui/src/main.tsx');
  const script = relative(assets, join(process.cwd(), entry[0]));
  const css = entry[1].cssBundle;
  const stylesheet = css ? relative(assets, join(process.cwd(), css)) : undefined;
  const preloads = (entry[1].imports ?? [])
    .filter((imported) => imported.kind === 'import-statement')
    .map((imported) => relative(assets, join(process.cwd(), imported.path)));
  writeFileSync(join(outdir, 'index.html'), indexHtml(script, stylesheet, preloads));
  writeFileSync(join(outdir, UI_META_FILE), JSON.stringify(result.metafile));
  return { metafile: result.metafile, script, stylesheet };
}

/**
 * The page: no inline script or style (the CSP allows neither), a data: icon (no request for
 * /favicon.ico), the entry module, the chunks it imports (preloaded: fetched with the entry, not after
 * it) and its stylesheet.
 */
function indexHtml(script: string, stylesheet: string | undefined, preloads: string[]): string {
  const at = (file: string) => `${ASSETS_PLACEHOLDER}/${file}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>promptops</title>
<link rel="icon" href="data:,">
${stylesheet ? `<link rel="stylesheet" href="${at(stylesheet)}">\n` : ''}${preloads.map((file) => `<link rel="modulepreload" href="${at(file)}">\n`).join('')}<script type="module" src="${at(script)}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The promptops dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}

/** The newest modification time under a folder (files only), 0 when it is missing. */
function newestMtime(folder: string): number {
  let newest = 0;
  let entries: string[];
  try {
    entries = readdirSync(folder, { recursive: true }) as string[];
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const stat = statSync(join(folder, entry));
    if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/**
 * Builds the dashboard when `dist` is missing or older than a source file (or this script): esbuild
 * takes well under a second, so `npm start` and the tests never serve a stale or missing UI.
 */
export async function ensureUiBuilt(): Promise<void> {
  if (isUiFresh()) return;
  // Test files start in parallel: each builds into its own folder; the first to finish moves it into
  // place, the others find `dist` fresh and drop theirs (never removing a `dist` being served).
  const scratch = `${UI_DIST}.${process.pid}.${Date.now()}`;
  try {
    await buildUi(scratch);
    if (isUiFresh()) return;
    rmSync(UI_DIST, { recursive: true, force: true });
    mkdirSync(dirname(UI_DIST), { recursive: true });
    renameSync(scratch, UI_DIST);
  } catch (error) {
    if (!isUiFresh()) throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Whether `dist` was built after the last change of a source file (or of this script). */
function isUiFresh(): boolean {
  let built = 0;
  try {
    built = statSync(join(UI_DIST, UI_META_FILE)).mtimeMs;
  } catch {
    return false;
  }
  const sources = Math.max(
    newestMtime(join(UI_ROOT, 'src')),
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
  );
  return built >= sources;
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const started = performance.now();
  const outdir = process.argv[2] ?? UI_DIST;
  const { metafile } = await buildUi(outdir);
  const files = Object.keys(metafile.outputs).length;
  console.log(`ui: built ${files} files into ${outdir} in ${Math.round(performance.now() - started)} ms`);
}

/**
 * The dashboard's bundle as its budgets count it, from esbuild's metafile (ui/dist/meta.json) and the
 * built files: gzip sizes (level 9, as a server compresses once) of
 * - the initial JS: the entry and every chunk it imports statically (what the first page load runs);
 * - the CSS: every stylesheet;
 * - each lazy chunk: a screen's chunk, or one a screen imports dynamically (the analytics chart), and
 *   the chunks it imports that the initial JS does not hold (what opening it downloads);
 * - the whole UI: every JS and CSS file.
 * The budget test (test/unit/ui-budgets.test.ts) fails past UI_BUDGETS; `npm run bench -- ui` prints it.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { UI_ASSETS_DIR, UI_DIST, UI_META_FILE } from './build.ts';

const KB = 1024;
export const UI_BUDGETS = {
  initialJs: 40 * KB,
  css: 10 * KB,
  lazyChunk: 40 * KB,
  total: 150 * KB,
} as const;

export interface BundleFile {
  file: string;
  bytes: number;
  gzipBytes: number;
  kind: 'initial' | 'lazy' | 'css';
}

export interface LazyLoad {
  /** The screen's chunk, e.g. `requests-X.js`. */
  chunk: string;
  /** Its source, e.g. `ui/src/screens/requests/index.tsx`. */
  source: string;
  /** gzip bytes of the chunk and of the chunks it imports that the initial JS does not hold. */
  gzipBytes: number;
}

export interface BundleReport {
  files: BundleFile[];
  initialJsGzip: number;
  cssGzip: number;
  lazyLoads: LazyLoad[];
  totalGzip: number;
}

export function bundleReport(dist = UI_DIST): BundleReport {
  const metafile = JSON.parse(readFileSync(join(dist, UI_META_FILE), 'utf8')) as Metafile;
  // Keyed by file name: the metafile's paths carry the folder it was built in.
  const outputs = new Map(Object.entries(metafile.outputs).map(([path, output]) => [basename(path), output]));
  const gzip = new Map<string, number>();
  const sizes = new Map<string, number>();
  for (const name of outputs.keys()) {
    const bytes = readFileSync(join(dist, UI_ASSETS_DIR, name));
    sizes.set(name, bytes.length);
    gzip.set(name, gzipSync(bytes, { level: 9 }).length);
  }
  const staticClosure = (name: string, into = new Set<string>()): Set<string> => {
    if (into.has(name)) return into;
    into.add(name);
    for (const imported of outputs.get(name)?.imports ?? [])
      if (imported.kind === 'import-statement') staticClosure(basename(imported.path), into);
    return into;
  };
  // The app's entry (main.tsx), not merely the first output with an entry point: split screens have one too.
  const entry = [...outputs].find(
    ([name, output]) => output.entryPoint?.endsWith('src/main.tsx') && name.endsWith('.js'),
  );
  if (!entry) throw new Error(`${dist}: no entry script in ${UI_META_FILE}`);
  const initial = staticClosure(entry[0]);
  const sum = (names: Iterable<string>) =>
    [...names].reduce((total, name) => total + (gzip.get(name) ?? 0), 0);
  // Every dynamic import, not only the entry's: a screen's own lazy chunk (uPlot's chart) is one too.
  const lazyChunks = new Set(
    [...outputs.values()].flatMap((output) =>
      (output.imports ?? [])
        .filter((imported) => imported.kind === 'dynamic-import')
        .map((imported) => basename(imported.path)),
    ),
  );
  const lazyLoads: LazyLoad[] = [...lazyChunks].map((chunk) => {
    const downloaded = [...staticClosure(chunk)].filter((name) => !initial.has(name));
    return { chunk, source: outputs.get(chunk)?.entryPoint ?? chunk, gzipBytes: sum(downloaded) };
  });
  const files: BundleFile[] = [...outputs.keys()].map((file) => ({
    file,
    bytes: sizes.get(file) ?? 0,
    gzipBytes: gzip.get(file) ?? 0,
    kind: file.endsWith('.css') ? 'css' : initial.has(file) ? 'initial' : 'lazy',
  }));
  return {
    files,
    initialJsGzip: sum(initial),
    cssGzip: sum(files.filter((file) => file.kind === 'css').map((file) => file.file)),
    lazyLoads,
    totalGzip: sum(outputs.keys()),
  };
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Imports only go down (docs/architecture.md, "Folders"): the "may import" column of its table, checked
 * over every import of functions/, shared/, infra/ and ui/ (static, `export ... from` and `import('...')`
 * with a literal path, type-only ones included), and no folder imports itself back through others.
 * Specifiers are read with two regular expressions (the repository's TypeScript is the native compiler,
 * which has no JavaScript API): a declaration starts a line (biome's format; a comment line starts with
 * `*` or `//`), and a dynamic import on a comment line is not one. Well under a second.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The shared blocks: what the features are built on. A block imports the platform and other blocks,
 * never a feature. Every other folder of shared/ is a feature.
 */
const BLOCKS = [
  'entities',
  'external-ids',
  'versions',
  'folders',
  'events',
  'providers',
  'auth',
  'sandbox',
  'env-vars',
  'blueprints',
  'costs',
].map((folder) => `shared/${folder}`);

/**
 * The unit a file belongs to: a folder of shared/, functions/ or infra/; the route table (routes.ts,
 * route-types.ts, table-actions.ts, gateway-errors.ts and routes/) and the CDK app (the other files at infra/'s root and
 * constructs/) are one unit each, as the table lists them.
 */
function unitOf(path: string): string {
  const parts = path.split('/');
  const [top, second] = parts;
  if (top === 'ui') return 'ui';
  if (top === 'infra') {
    if (['routes.ts', 'route-types.ts', 'table-actions.ts', 'gateway-errors.ts', 'routes'].includes(second!))
      return 'infra/routes';
    if (parts.length === 2 || second === 'constructs') return 'infra/stack';
  }
  return parts.length > 2 ? `${top}/${second}` : path;
}

const isShared = (unit: string) => unit.startsWith('shared/');
const isBlock = (unit: string) => BLOCKS.includes(unit);

/** Whether `from` may import `to` (two different units), by the table of docs/architecture.md. */
function mayImport(from: string, to: string, typeOnly: boolean): boolean {
  if (from === 'shared/platform') return false;
  if (isBlock(from)) return to === 'shared/platform' || isBlock(to);
  if (isShared(from)) return isShared(to);
  if (from.startsWith('functions')) return isShared(to);
  if (from === 'ui') return isShared(to) && typeOnly;
  // The local runtime and the bench build the dashboard (ui/build.ts); no server code imports it.
  if (to === 'ui') return from.startsWith('infra/');
  switch (from) {
    case 'infra/routes':
      return isShared(to);
    case 'infra/openapi':
      return isShared(to) || to.startsWith('functions') || to === 'infra/routes';
    case 'infra/stack':
      return isShared(to) || to === 'infra/routes' || to === 'infra/openapi';
    case 'infra/local':
      return isShared(to) || to.startsWith('functions') || ['infra/routes', 'infra/openapi'].includes(to);
    case 'infra/scripts':
    case 'infra/bench':
      return true;
    default:
      return false;
  }
}

interface Import {
  /** The importing file, from the repository root. */
  file: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file, from the repository root. */
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name) && !name.split('/').includes('node_modules'))
    .map((name) => `${dir}/${name}`);
}

const ALIASES: Record<string, string> = {
  '#shared/': 'shared/',
  '#functions/': 'functions/',
  '#infra/': 'infra/',
  '#test/': 'test/',
};

/** `import ... from '...'`, `import '...'` and `export ... from '...'` at the start of a line (to the first `;`). */
const DECLARATION = /^(import|export)(\s+type\b)?(?:[^;'"]*?\bfrom)?\s*['"]([^'"]+)['"]/gm;
/** `import('...')` with a literal path, a value or a type. */
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The repository's own imports of a file (packages and node: modules left out). */
function importsOf(file: string, text: string): Import[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(DECLARATION))
    found.push({ specifier: match[3]!, typeOnly: match[2] !== undefined });
  for (const match of text.matchAll(DYNAMIC)) {
    const line = text.slice(text.lastIndexOf('\n', match.index) + 1, match.index).trimStart();
    if (!/^(\*|\/\/|\/\*)/.test(line)) found.push({ specifier: match[1]!, typeOnly: false });
  }
  return found.flatMap(({ specifier, typeOnly }) => {
    const alias = Object.keys(ALIASES).find((prefix) => specifier.startsWith(prefix));
    const target = alias
      ? ALIASES[alias] + specifier.slice(alias.length)
      : specifier.startsWith('.')
        ? relative(ROOT, resolve(ROOT, dirname(file), specifier))
        : undefined;
    return target === undefined ? [] : [{ file, specifier, target, typeOnly }];
  });
}

/** Imports a unit may not make, one line each: `file imports specifier (from-unit may not import to-unit)`. */
function forbiddenImports(imports: readonly Import[]): string[] {
  return imports.flatMap(({ file, specifier, target, typeOnly }) => {
    const from = unitOf(file);
    const to = unitOf(target);
    if (from === to || target.startsWith('test/') || mayImport(from, to, typeOnly)) return [];
    return [`${file} imports ${specifier} (${from} may not import ${to})`];
  });
}

/**
 * The cycles of a graph (its strongly connected components of more than one node, Tarjan's), each
 * named by one import per edge inside it.
 */
function cycles(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1)
      found.push(
        component.flatMap((from) =>
          [...(edges.get(from) ?? [])].filter(([to]) => component.includes(to)).map(([, via]) => via),
        ),
      );
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The graph of units (or of files), each edge named by its first import. */
function graph(imports: readonly Import[], node: (path: string) => string): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const { file, specifier, target } of imports) {
    const from = node(file);
    const to = node(target);
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${file} imports ${specifier}`);
  }
  return edges;
}

const IMPORTS = ['functions', 'shared', 'infra', 'ui']
  .flatMap(sourceFiles)
  .flatMap((file) => importsOf(file, readFileSync(join(ROOT, file), 'utf8')));

describe('import boundaries', () => {
  it('reads the imports of the code', () => {
    expect(IMPORTS.length).toBeGreaterThan(1000);
    expect(IMPORTS.some((i) => i.target === 'shared/platform/http.ts')).toBe(true);
  });

  it('imports only go down: every import is one the table of docs/architecture.md allows', () => {
    expect(forbiddenImports(IMPORTS)).toEqual([]);
  });

  it('no folder imports itself back through others', () => {
    expect(cycles(graph(IMPORTS, unitOf))).toEqual([]);
  });

  it('no module imports itself back through others', () => {
    expect(cycles(graph(IMPORTS, (path) => path))).toEqual([]);
  });

  it('docs/architecture.md names every folder of shared/ and each block as a block', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const folders = readdirSync(join(ROOT, 'shared'), { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    );
    expect(folders.map(({ name }) => name).filter((name) => !doc.includes(`${name}/\``))).toEqual([]);
    const blocksRow = doc.split('\n').find((line) => line.startsWith('| shared blocks:'));
    expect(BLOCKS.filter((block) => !blocksRow?.includes(`\`${block.slice('shared/'.length)}/\``))).toEqual(
      [],
    );
  });
});

describe('the checker itself', () => {
  const imp = (file: string, specifier: string, typeOnly = false): Import => ({
    file,
    specifier,
    target: specifier.startsWith('#')
      ? specifier.slice(1)
      : relative(ROOT, resolve(ROOT, dirname(file), specifier)),
    typeOnly,
  });

  it('names an import that goes up, and allows one that goes down', () => {
    expect(
      forbiddenImports([
        imp('shared/platform/http.ts', '#shared/auth/key-cache.ts'),
        imp('shared/versions/list.ts', '#shared/prompts/read.ts'),
        imp('ui/src/api.ts', '#shared/prompts/read.ts'),
        imp('ui/src/api.ts', '#shared/prompts/schemas.ts', true),
        imp('shared/prompts/read.ts', '#shared/versions/read.ts'),
        imp('functions/http/x.ts', '#shared/prompts/read.ts'),
        imp('infra/routes/prompts.ts', '#functions/http/x.ts'),
        imp('infra/local/service.ts', '../../ui/build.ts'),
        imp('functions/http/ui-assets.ts', '../../ui/build.ts'),
      ]),
    ).toEqual([
      'shared/platform/http.ts imports #shared/auth/key-cache.ts (shared/platform may not import shared/auth)',
      'shared/versions/list.ts imports #shared/prompts/read.ts (shared/versions may not import shared/prompts)',
      'ui/src/api.ts imports #shared/prompts/read.ts (ui may not import shared/prompts)',
      'infra/routes/prompts.ts imports #functions/http/x.ts (infra/routes may not import functions/http)',
      'functions/http/ui-assets.ts imports ../../ui/build.ts (functions/http may not import ui)',
    ]);
  });

  it('names every import of a cycle between folders', () => {
    const found = cycles(
      graph(
        [
          imp('shared/prompts/tool-refs.ts', '#shared/tools/registry.ts'),
          imp('shared/tools/publish.ts', '#shared/prompts/template-cache.ts'),
          imp('shared/tools/publish.ts', '#shared/versions/publish.ts'),
        ],
        unitOf,
      ),
    );
    expect(found.map((cycle) => cycle.sort())).toEqual([
      [
        'shared/prompts/tool-refs.ts imports #shared/tools/registry.ts',
        'shared/tools/publish.ts imports #shared/prompts/template-cache.ts',
      ],
    ]);
  });

  it('reads type-only, re-exported and dynamic imports, and no comment', () => {
    const text = [
      "import type { A } from '#shared/a/a.ts';",
      "export { b } from './b.ts';",
      "const c = await import('../c/c.ts');",
      "// import { d } from '#shared/d/d.ts';",
      " * const d = await import('#shared/d/d.ts');",
      "import { e } from 'zod';",
      "export const f = 'from';",
    ].join('\n');
    expect(importsOf('shared/x/x.ts', text)).toEqual([
      { file: 'shared/x/x.ts', specifier: '#shared/a/a.ts', target: 'shared/a/a.ts', typeOnly: true },
      { file: 'shared/x/x.ts', specifier: './b.ts', target: 'shared/x/b.ts', typeOnly: false },
      { file: 'shared/x/x.ts', specifier: '../c/c.ts', target: 'shared/c/c.ts', typeOnly: false },
    ]);
  });
});

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';

/**
 * The skill-collection create function, bundled as the stack bundles it (the ZIP reader, YAML parser and
 * multipart parser included, the AWS SDK external as in Lambda), minified. The goal is 250 KB; it is
 * about 254 KB: `yaml` (95 KB, its ESM build, aliased in infra/bundling.ts) and zod/mini (35 KB) are
 * 130 KB, yauzl and busboy 45 KB. This guards against growth (the ZIP writer, for one, stays out:
 * archive-write.ts).
 */
const LIMIT_KB = 260;
const outDir = mkdtempSync(join(tmpdir(), 'promptops-skills-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('skill collection bundles', () => {
  it(`keeps the create function under ${LIMIT_KB} KB`, async () => {
    const outfile = join(outDir, 'index.mjs');
    await build(esbuildOptions(join(REPO_ROOT, 'functions/http/skill-collection-create.ts'), outfile));
    expect(statSync(outfile).size / 1024).toBeLessThan(LIMIT_KB);
  });

  // The ZIP reader (yauzl, CommonJS: never tree-shaken) is bundled by whoever imports archive.ts, so only
  // the two routes that take a ZIP import it; files.ts, which every skill function loads, does not.
  const ZIP_READERS = ['skill-collection-create.ts', 'skill-collection-version-create.ts'];
  const others = readdirSync(join(REPO_ROOT, 'functions/http')).filter(
    (name) => name.startsWith('skill-') && !ZIP_READERS.includes(name),
  );

  it.each(others)('leaves the ZIP reader out of %s, which reads no ZIP', async (name) => {
    const result = await build({
      ...esbuildOptions(join(REPO_ROOT, 'functions/http', name), join(outDir, 'other.mjs')),
      metafile: true,
      write: false,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((input) => input.includes('shared/skills/'))).toBe(true);
    expect(inputs.filter((input) => input.includes('node_modules/yauzl/'))).toEqual([]);
  });
});

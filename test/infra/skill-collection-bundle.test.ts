import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';
import { ZIP_READER_PACKAGE } from '#shared/skills/archive.ts';

/**
 * The skill-collection create function, bundled as the stack bundles it (the YAML parser included; the
 * multipart parser and the ZIP reader imported on demand, beside the bundle; the AWS SDK external as in
 * Lambda), minified: about 207 KB, of which `yaml` (95 KB, its ESM build, aliased in
 * infra/bundling.ts) and zod/mini (35 KB). This holds it to every function's 250 KB (the ZIP writer, for
 * one, stays out: archive-write.ts).
 */
const LIMIT_KB = 250;
const outDir = mkdtempSync(join(tmpdir(), 'promptops-skills-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('skill collection bundles', () => {
  it(`keeps the create function under ${LIMIT_KB} KB`, async () => {
    const outfile = join(outDir, 'index.mjs');
    await build(esbuildOptions(join(REPO_ROOT, 'functions/http/skill-collection-create.ts'), outfile));
    expect(statSync(outfile).size / 1024).toBeLessThan(LIMIT_KB);
  });

  // The ZIP reader (yauzl, imported on demand) is named by whoever imports archive.ts, so only the two
  // routes that take a ZIP import it (and carry it beside their bundle); files.ts, which every skill
  // function loads, does not.
  const ZIP_READERS = ['skill-collection-create.ts', 'skill-collection-version-create.ts'];
  const others = readdirSync(join(REPO_ROOT, 'functions/http')).filter(
    (name) => name.startsWith('skill-') && !ZIP_READERS.includes(name),
  );

  const bundled = async (name: string) => {
    const result = await build({
      ...esbuildOptions(join(REPO_ROOT, 'functions/http', name), join(outDir, 'other.mjs')),
      metafile: true,
      write: false,
    });
    const code = result.outputFiles.find((file) => file.path.endsWith('.mjs'))?.text ?? '';
    return { inputs: Object.keys(result.metafile.inputs), code };
  };

  it('names the ZIP reader in the routes that take a ZIP, for the copy beside them', async () => {
    for (const name of ZIP_READERS) expect((await bundled(name)).code).toContain(ZIP_READER_PACKAGE);
  });

  it.each(others)('leaves the ZIP reader out of %s, which reads no ZIP', async (name) => {
    const { inputs, code } = await bundled(name);
    expect(inputs.some((input) => input.includes('shared/skills/'))).toBe(true);
    expect(code).not.toContain(ZIP_READER_PACKAGE);
  });
});

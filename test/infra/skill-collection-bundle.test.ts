import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '#infra/bundling.ts';
import { REPO_ROOT } from '#infra/local/service.ts';

/**
 * The skill-collection create function, bundled as the stack bundles it (the ZIP reader, YAML parser and
 * multipart parser included, the AWS SDK external as in Lambda), stays under 300 KB minified.
 */
const outDir = mkdtempSync(join(tmpdir(), 'promptops-skills-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('skill collection bundles', () => {
  it('keeps the create function under 300 KB', async () => {
    const outfile = join(outDir, 'index.mjs');
    await build(esbuildOptions(join(REPO_ROOT, 'functions/http/skill-collection-create.ts'), outfile));
    expect(statSync(outfile).size / 1024).toBeLessThan(300);
  });
});

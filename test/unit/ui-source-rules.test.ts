import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';

/**
 * The dashboard renders everything user- or model-written as text: no source file of ui/src may write
 * HTML or run strings as code (Trusted Types would refuse it at run time; this finds it before).
 */
const FORBIDDEN = [
  'dangerouslySetInnerHTML',
  'innerHTML',
  'outerHTML',
  'insertAdjacentHTML',
  'document.write',
  'eval(',
  'new Function',
  'createContextualFragment',
  'srcdoc',
];

const sourceDir = join(REPO_ROOT, 'ui', 'src');
const sources = (readdirSync(sourceDir, { recursive: true }) as string[]).filter((file) =>
  /\.(tsx?|css)$/.test(file),
);

describe('dashboard sources', () => {
  it('are found', () => {
    expect(sources).toContain('main.tsx');
  });

  it.each(sources)('%s writes no HTML and evaluates no strings', (file) => {
    const text = readFileSync(join(sourceDir, file), 'utf8');
    expect(FORBIDDEN.filter((pattern) => text.includes(pattern))).toEqual([]);
  });
});

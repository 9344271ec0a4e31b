import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLE } from '#infra/bundling.ts';

/**
 * Local runs, tests and CI use the Node binary pinned as a dev dependency (npm package `node`), which npm
 * scripts find first on their PATH, so that they run on Lambda's major and not on the machine's.
 */
const LAMBDA_MAJOR = '24';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

describe('Node.js version', () => {
  it('runs the tests on the same major as the Lambda runtime', () => {
    expect(process.versions.node.split('.')[0]).toBe(LAMBDA_MAJOR);
  });

  it('pins that major everywhere it is named', () => {
    expect(pkg.devDependencies.node.split('.')[0]).toBe(LAMBDA_MAJOR);
    expect(pkg.engines.node).toBe(`>=${LAMBDA_MAJOR} <${Number(LAMBDA_MAJOR) + 1}`);
    expect(pkg.devDependencies['@types/node'].split('.')[0]).toBe(LAMBDA_MAJOR);
    expect(BUNDLE.target).toBe(`node${LAMBDA_MAJOR}`);
  });
});

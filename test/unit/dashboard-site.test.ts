import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptsGzip,
  CONTENT_SECURITY_POLICY,
  contentSecurityPolicy,
  DashboardSite,
  gatewayPassesBytes,
} from '#shared/dashboard/site.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard site', () => {
  it('finds files built after it started (npm run ui:build while the service runs; a fresh clone)', () => {
    const dist = mkdtempSync(join(tmpdir(), 'promptops-ui-'));
    dirs.push(dist);
    const site = new DashboardSite(dist);
    expect(site.answer({ path: 'requests', headers: {} }).status).toBe(500);
    expect(site.answer({ path: 'assets/main-A1.js', headers: {} }).status).toBe(404);

    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'assets', 'main-A1.js'), 'export {};');
    writeFileSync(join(dist, 'index.html'), '<script type="module" src="%ASSETS%/main-A1.js"></script>');
    const script = site.answer({ path: 'assets/main-A1.js', headers: {} });
    expect(script.status).toBe(200);
    expect(script.body.toString()).toBe('export {};');
    expect(site.answer({ path: 'prompts/x', headers: {} }).body.toString()).toBe(
      '<script type="module" src="../assets/main-A1.js"></script>',
    );
  });

  it.each([
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['gzip;q=0', false],
    ['*', true],
    ['identity', false],
    [undefined, false],
  ])('reads Accept-Encoding %s as accepting gzip: %s', (header, accepted) => {
    expect(acceptsGzip(header)).toBe(accepted);
  });

  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9', true],
    ['text/css,*/*;q=0.1', true],
    ['*/*', false],
    ['application/json', false],
    [undefined, false],
  ])('expects API Gateway to pass bytes for Accept %s: %s', (header, passes) => {
    expect(gatewayPassesBytes(header)).toBe(passes);
  });
});

describe("the dashboard's CSP", () => {
  it("lets the page connect to the bucket's origin, and to nothing else", () => {
    const origin = 'https://promptops-dev-databucket-x1.s3.eu-west-1.amazonaws.com';
    expect(contentSecurityPolicy(origin)).toBe(
      CONTENT_SECURITY_POLICY.replace("connect-src 'self';", `connect-src 'self' ${origin};`),
    );
    expect(contentSecurityPolicy('http://127.0.0.1:4569')).toContain(
      "connect-src 'self' http://127.0.0.1:4569;",
    );
  });

  it.each([
    "https://x.example; script-src 'unsafe-inline'",
    'https://x.example/path',
    '*',
    'javascript:alert(1)',
    'https://a b.example',
    '',
  ])('leaves out an upload origin that is not a bare http(s) origin: %s', (value) => {
    expect(contentSecurityPolicy(value)).toBe(CONTENT_SECURITY_POLICY);
  });
});

import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, contentSecurityPolicy } from '#shared/dashboard/site.ts';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The dashboard as the local gateway serves it (the same handler as in AWS): its files without a key,
 * the security headers on every answer, caching, gzip, deep links, the redirects; and GET /me.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, service.baseUrl), { headers, redirect: 'manual' });

/** The dashboard's own answers let the page PUT uploads to the S3 emulator; the redirects do not need to. */
const pageCsp = () => contentSecurityPolicy(new URL(service.s3Endpoint).origin);

function expectSecurityHeaders(answer: Response, csp = pageCsp()): void {
  expect(answer.headers.get('content-security-policy')).toBe(csp);
  expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
}

/** The page's asset URLs, as written in it. */
const assetUrls = (html: string) =>
  [...html.matchAll(/(?:href|src)="([^"]*assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('GET /ui/{proxy+}', () => {
  it("answers the page without a key, no-cache, with the CSP as the issue states it, plus the bucket's origin to connect to", async () => {
    const answer = await get('/ui/requests');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${new URL(service.s3Endpoint).origin}; base-uri 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'`,
    );
    expectSecurityHeaders(answer);
    const html = await answer.text();
    expect(html).toContain('<div id="app"></div>');
    // No inline script or style: the CSP would refuse them.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\bstyle=|\bon\w+=/);
  });

  it('answers the same page for any deep link, with asset URLs relative to its depth', async () => {
    for (const [path, prefix] of [
      ['/ui/requests?status=ERROR&selected=12', './assets/'],
      ['/ui/prompts/my-template', '../assets/'],
      ['/ui/prompts/my-template/versions/3', '../../../assets/'],
    ] as const) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      const urls = assetUrls(await answer.text());
      expect(urls.length).toBeGreaterThanOrEqual(2);
      for (const url of urls) {
        expect(url.startsWith(prefix), `${path}: ${url}`).toBe(true);
        // Resolved as the browser resolves it, the asset is there.
        const asset = await get(new URL(url, new URL(path, service.baseUrl)).pathname);
        expect(asset.status, url).toBe(200);
      }
    }
  });

  it('answers hashed assets immutable for a year with their type; an unknown asset is a 404, not the page', async () => {
    const urls = assetUrls(await (await get('/ui/requests')).text());
    const script = urls.find((url) => url.endsWith('.js'))!;
    const style = urls.find((url) => url.endsWith('.css'))!;
    const js = await get(`/ui/${script.replace('./', '')}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(js);
    const css = await get(`/ui/${style.replace('./', '')}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    for (const path of ['/ui/assets/main-NOPE1234.js', '/ui/assets/..%2findex.html', '/ui/assets/a/b.js']) {
      const missing = await get(path);
      expect(missing.status, path).toBe(404);
      expect(await missing.json()).toMatchObject({ success: false, error: 'not_found' });
      expectSecurityHeaders(missing);
    }
  });

  it('gzips what API Gateway passes as bytes (stylesheets, pages over 1 KB) when the client accepts gzip', async () => {
    const urls = assetUrls(await (await get('/ui/requests')).text());
    const style = urls.find((url) => url.endsWith('.css'))!.replace('./', '/ui/');
    const css = await rawGet(style, { Accept: 'text/css,*/*;q=0.1' });
    expect(css.body.length).toBeGreaterThan(1024);
    expect(css.headers['content-encoding']).toBeUndefined();
    const zipped = await rawGet(style, {
      Accept: 'text/css,*/*;q=0.1',
      'Accept-Encoding': 'gzip, deflate, br',
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(zipped.body.length).toBeLessThan(css.body.length);
    expect(gunzipSync(zipped.body).equals(css.body)).toBe(true);
    // gzip;q=0 refuses it.
    const refused = await rawGet(style, { Accept: 'text/css', 'Accept-Encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    // A script asked for with Accept: */* stays plain: API Gateway would hand the browser base64 text.
    const script = urls.find((url) => url.endsWith('.js'))!.replace('./', '/ui/');
    const js = await rawGet(script, { Accept: '*/*', 'Accept-Encoding': 'gzip' });
    expect(js.headers['content-encoding']).toBeUndefined();
    expect(js.body.toString('utf8')).toMatch(/^import|^var|^function|^const|^let|^\(/);
  });

  it('redirects /, /ui and /ui/ to the first screen, with the security headers', async () => {
    for (const path of ['/', '/ui', '/ui/']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(302);
      expect(answer.headers.get('location')).toBe('/ui/requests');
      expectSecurityHeaders(answer, CONTENT_SECURITY_POLICY);
    }
  });
});

describe('GET /api/public/v2/me', () => {
  it('describes the key: workspace, key id and prefix (never the key), user, permissions', async () => {
    const { status, body } = await service.call('GET', '/api/public/v2/me');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      workspace: { id: service.workspaceId, name: 'default' },
      key: { id: expect.any(Number), prefix: service.apiKey.slice(0, 7) },
      user: { id: expect.any(Number) },
      permissions: { request_logs: 'edit', prompts: 'edit', monitors: 'edit' },
    });
    expect(JSON.stringify(body)).not.toContain(service.apiKey);
  });

  it('answers a read-only key its read permissions, and a key with some types only those', async () => {
    const readOnly = await service.call('GET', '/api/public/v2/me', {
      key: await service.keyWithPermissions(READ_ONLY),
    });
    expect(Object.values(readOnly.body.permissions)).toEqual(Object.values(READ_ONLY));
    const some = await service.call('GET', '/api/public/v2/me', {
      key: await service.keyWithPermissions({ prompts: 'edit' }),
    });
    expect(some.body.permissions).toEqual({ prompts: 'edit' });
  });

  it('refuses a wrong or missing key with 401', async () => {
    expect((await service.rejected('GET', '/api/public/v2/me', { key: 'pl_wrong' })).status).toBe(401);
    expect((await service.rejected('GET', '/api/public/v2/me', { key: null })).status).toBe(401);
  });
});

/** A GET whose body is read as sent (fetch would decompress it). */
async function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(new URL(path, service.baseUrl), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

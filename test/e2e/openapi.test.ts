import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '#infra/openapi/document.ts';
import { API_ROUTES } from '#infra/routes.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, service.baseUrl), { headers });

describe('GET /openapi.json', () => {
  it('answers the OpenAPI document of every route, without a key', async () => {
    const answer = await get('/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const doc = (await answer.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of API_ROUTES) expect(doc.paths[route.path]?.[route.method.toLowerCase()]).toBeDefined();
  });

  it('serves the committed docs/openapi.json, cacheable by ETag, loadable from any origin', async () => {
    const answer = await get('/openapi.json', { Accept: 'application/json' });
    expect(await answer.json()).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const etag = answer.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await get('/openapi.json', { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get('/openapi.json', { 'If-None-Match': '"other"' })).status).toBe(200);
  });

  it('gzips the document when the client accepts it and API Gateway would pass the bytes through', async () => {
    // A browser opening the URL: text/html first, a binary media type of the API, so the bytes pass.
    const browser = await get('/openapi.json', { Accept: 'text/html,*/*', 'Accept-Encoding': 'gzip' });
    expect(browser.headers.get('content-encoding')).toBe('gzip');
    expect(browser.headers.get('content-type')).toBe('application/json');
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(await browser.json()).toEqual(document);
    // application/json first: API Gateway would send the base64 text as is, so the answer stays plain.
    const client = await get('/openapi.json', { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    expect(client.headers.get('content-encoding')).toBeNull();
    expect(await client.json()).toEqual(document);
    const refuses = await get('/openapi.json', { Accept: 'text/html', 'Accept-Encoding': 'gzip;q=0' });
    expect(refuses.headers.get('content-encoding')).toBeNull();
  });

  it('names the shared schemas as components and refers to them', async () => {
    const doc = (await (await get('/openapi.json')).json()) as any;
    const detail = doc.paths['/api/public/v2/requests/{request_id}'].get.responses['200'];
    expect(detail.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RequestLogDetail',
    });
    expect(doc.components.schemas.RequestLogDetail.required).toEqual(
      expect.arrayContaining(['id', 'input', 'output', 'request_start_time']),
    );
  });
});

describe('GET /docs', () => {
  it('answers a page that loads Swagger UI from the service itself, without a key', async () => {
    const answer = await get('/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await answer.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual(
      expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']),
    );
    // No CDN: every file the page loads is served here.
    for (const source of sources) expect(source.startsWith('/docs/'), source).toBe(true);
  });

  it.each([
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'SwaggerUIBundle'],
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8', '.swagger-ui'],
    ['/docs/init.js', 'text/javascript; charset=utf-8', '"/openapi.json"'],
  ])('serves %s as %s', async (path, type, content) => {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(type);
    expect(await answer.text()).toContain(content);
  });

  it('serves the favicon as a PNG', async () => {
    const answer = await get('/docs/favicon-32x32.png');
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await answer.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('serves no other file of the package, nor any path outside it', async () => {
    for (const path of ['/docs/package.json', '/docs/../package.json', '/docs/%2e%2e/package.json']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });
});

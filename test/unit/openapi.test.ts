import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answerMismatch } from '#infra/openapi/answers.ts';
import { OPENAPI_FILE, openApiText, REPO_ROOT } from '#infra/openapi/document.ts';
import {
  buildOpenApiDocument,
  type DocumentedRoute,
  handlerComment,
  loadDocumentedRoutes,
  type OpenApiDocument,
} from '#infra/openapi/generate.ts';
import type { RouteDef } from '#infra/routes.ts';
import { API_ROUTES } from '#infra/routes.ts';
import { httpRoute } from '#shared/platform/http.ts';

let routes: DocumentedRoute[];
let doc: OpenApiDocument;

beforeAll(async () => {
  routes = await loadDocumentedRoutes(API_ROUTES, REPO_ROOT);
  doc = buildOpenApiDocument(routes);
});

type Json = Record<string, any>;
const operation = (route: RouteDef): Json => (doc.paths as Json)[route.path]?.[route.method.toLowerCase()];
/** A schema, or the component its `$ref` names. */
const resolve = (schema: Json): Json =>
  schema.$ref ? (doc.components.schemas as Json)[schema.$ref.replace('#/components/schemas/', '')] : schema;

describe('route declarations', () => {
  it('declare a response schema for every route of the route table', () => {
    const missing = routes
      .filter(({ definition }) => Object.keys(definition.responses ?? {}).length === 0)
      .map(({ route }) => `${route.method} ${route.path}`);
    expect(missing, 'routes without `responses` in their httpRoute definition').toEqual([]);
    for (const { definition } of routes) {
      for (const status of Object.keys(definition.responses ?? {}).map(Number)) {
        expect(status >= 200 && status < 300, `success status ${status}`).toBe(true);
      }
    }
  });

  it('declare a body schema where the method carries a body, and a path schema for every path parameter', () => {
    for (const { route, definition } of routes) {
      const where = `${route.method} ${route.path}`;
      // A bytes body (OTLP) is decoded by its route and documented by `bytesBody.documented`.
      if (['POST', 'PUT', 'PATCH'].includes(route.method))
        expect(definition.body ?? definition.bytesBody?.documented, where).toBeDefined();
      const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]);
      if (names.length === 0) continue;
      expect(definition.path, where).toBeDefined();
      const shape = z.toJSONSchema(definition.path!, { io: 'input', unrepresentable: 'any' }) as Json;
      expect(Object.keys(shape.properties ?? {}).sort(), where).toEqual([...names].sort());
    }
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with every route of the table, once, under a unique operationId', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(API_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    const ids = API_ROUTES.map((route) => operation(route).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of API_ROUTES) {
      expect(operation(route).summary, route.path).toMatch(/\S/);
      expect(operation(route).summary, route.path).not.toMatch(/spec \d/);
    }
  });

  it('documents parameters, body, success bodies and error answers of each route', () => {
    for (const { route, definition } of routes) {
      const op = operation(route);
      const where = `${route.method} ${route.path}`;
      const pathParams = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(pathParams.sort(), where).toEqual(
        [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]).sort(),
      );
      if (definition.body) {
        expect(resolve(op.requestBody.content['application/json'].schema), where).toMatchObject({
          type: 'object',
        });
      }
      for (const status of Object.keys(definition.responses ?? {})) {
        // A 204 has no body, so no content.
        if (status === '204') expect(op.responses[status].content, `${where} ${status}`).toBeUndefined();
        else
          expect(op.responses[status].content['application/json'].schema, `${where} ${status}`).toBeDefined();
      }
      for (const status of ['401', '403', '422', '500']) {
        expect(op.responses[status], `${where} ${status}`).toBeDefined();
      }
      if (definition.body)
        for (const status of ['400', '413', '415']) expect(op.responses[status]).toBeDefined();
      if (route.path.includes('{')) expect(op.responses['404'], where).toBeDefined();
      for (const status of definition.errors ?? []) expect(op.responses[String(status)], where).toBeDefined();
    }
  });

  it('has the fields OpenAPI 3.1 requires on every parameter and response', () => {
    for (const methods of Object.values(doc.paths) as Json[]) {
      for (const op of Object.values(methods) as Json[]) {
        for (const parameter of op.parameters ?? []) {
          expect(parameter).toMatchObject({ name: expect.any(String), schema: expect.any(Object) });
          expect(['path', 'query']).toContain(parameter.in);
          if (parameter.in === 'path') expect(parameter.required).toBe(true);
        }
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(response.$ref ?? response.description, `${op.operationId} ${status}`).toEqual(
            expect.any(String),
          );
        }
      }
    }
  });

  it('answers every error with the shared error body', () => {
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      properties: { success: { const: false }, message: { type: 'string' }, error: { type: 'string' } },
      required: ['success', 'message', 'error'],
    });
    for (const response of Object.values(doc.components.responses) as Json[]) {
      expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
  });

  it('takes the API key in the X-API-KEY header', () => {
    expect(doc.components.securitySchemes.ApiKeyHeader).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-KEY',
    });
    expect(doc.security).toEqual([{ ApiKeyHeader: [] }]);
  });

  it('resolves every $ref inside the document', () => {
    const refs: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === '$ref') refs.push(inner as string);
          else walk(inner);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#\//);
      let target: any = doc;
      for (const part of ref.slice(2).split('/')) {
        target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      expect(target, ref).toBeTypeOf('object');
    }
  });

  it('is committed as docs/openapi.json, as `npm run openapi` writes it', async () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(committed === (await openApiText()), 'docs/openapi.json is stale: run `npm run openapi`').toBe(
      true,
    );
  });

  it('documents a route that authenticates with `api_key` in its body: no header security, the field', () => {
    const handler = httpRoute({
      body: z.object({ request_id: z.int() }),
      permission: ['request_logs', 'edit'],
      responses: { 200: z.object({ success: z.literal(true) }) },
      handle: async () => ({ success: true }),
    });
    const route = {
      method: 'POST',
      path: '/library-track-score',
      handler: 'functions/http/library-track-score.ts',
      table: 'write',
      auth: 'body',
    } as RouteDef;
    const built = buildOpenApiDocument([{ route, definition: handler.definition }]);
    const op = (built.paths as Json)['/library-track-score'].post;
    expect(op.security).toEqual([]);
    expect(op.requestBody.content['application/json'].schema).toMatchObject({
      properties: { api_key: { type: 'string' }, request_id: { type: 'integer' } },
      required: ['request_id', 'api_key'],
    });
    expect(op.responses['401']).toBeDefined();
  });

  it('hoists a recursive schema into the components and documents transforms by what they take and give', () => {
    type Tree = { name: string; children: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));
    const handler = httpRoute({
      body: z.object({ root: tree, when: z.string().transform(Date.parse) }),
      permission: ['prompts', 'edit'],
      responses: { 201: z.object({ at: z.date(), count: z.string().transform(Number) }) },
      handle: async () => ({}),
    });
    const route = {
      method: 'POST',
      path: '/trees',
      handler: 'functions/http/trees.ts',
      table: 'write',
    } as RouteDef;
    const built = buildOpenApiDocument([{ route, definition: handler.definition }]) as Json;
    const op = built.paths['/trees'].post;
    const body = op.requestBody.content['application/json'].schema;
    expect(body.properties.when).toEqual({ type: 'string' });
    const ref: string = body.properties.root.$ref ?? body.properties.root.properties.children.items.$ref;
    expect(ref).toMatch(/^#\/components\/schemas\//);
    expect(built.components.schemas[ref.split('/').at(-1)!]).toMatchObject({ type: 'object' });
    expect(JSON.stringify(built)).not.toContain('$defs');
    // A date or a transform's output has no JSON Schema: documented open rather than refused.
    expect(op.responses['201'].content['application/json'].schema.properties).toEqual({ at: {}, count: {} });
  });

  it("documents /track-request's log fields, the request times it requires among them", () => {
    const op = operation(API_ROUTES.find((route) => route.path === '/track-request')!);
    const body = resolve(op.requestBody.content['application/json'].schema);
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['request_start_time', 'request_end_time', 'tags', 'metadata', 'group_id']),
    );
    expect(body.required).toEqual(expect.arrayContaining(['request_start_time', 'request_end_time']));
  });

  it('takes the summary from the handler doc comment, without its method and path', () => {
    const comment = handlerComment(
      '/**\n * POST /log-request: records a request. More words\n * here.\n */\nexport const handler = 1;',
    );
    expect(comment).toBe('POST /log-request: records a request. More words here.');
    const op = operation(API_ROUTES.find((route) => route.path === '/log-request')!);
    expect(op.summary).toBe('Records a request made outside the service');
  });
});

describe('answerMismatch', () => {
  const handler = httpRoute({
    permission: ['prompts', 'read'],
    responses: { 200: z.object({ id: z.int(), name: z.string().nullable() }) },
    handle: async () => ({}),
  });

  it('accepts an answer of the declared shape, and leaves error answers alone', () => {
    expect(answerMismatch(handler, 200, JSON.stringify({ id: 1, name: null, more: 1 }))).toBeUndefined();
    expect(answerMismatch(handler, 404, '{"success":false}')).toBeUndefined();
  });

  it('names a missing required field, a wrong type and an undeclared success status', () => {
    expect(answerMismatch(handler, 200, JSON.stringify({ id: 1 }))).toMatch(/name/);
    expect(answerMismatch(handler, 200, JSON.stringify({ id: '1', name: 'a' }))).toMatch(/id/);
    expect(answerMismatch(handler, 201, JSON.stringify({ id: 1, name: 'a' }))).toMatch(/201.*declare/);
    expect(answerMismatch(handler, 200, 'not json')).toMatch(/not JSON/);
  });
});

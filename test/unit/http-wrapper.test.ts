import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { kindOfFolderType } from '#shared/entities/kinds.ts';
import { kindPermission } from '#shared/entities/permissions.ts';
import { type Permissions, toAuthorizerContext } from '#shared/platform/auth-context.ts';
import { MAX_REQUEST_BODY_BYTES } from '#shared/platform/config.ts';
import { notFound } from '#shared/platform/errors.ts';
import { type HttpHandler, HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { logger } from '#shared/platform/logger.ts';
import { idParam, queryBoolean } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * The HTTP wrapper every route is built with, exercised through small routes defined here and fake
 * API Gateway proxy events: parsing, permissions, validation and the error body
 * `{success: false, message, error, detail?}`.
 */
const EDIT_ALL: Permissions = { request_logs: 'edit', prompts: 'edit' };

interface EventOptions {
  body?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  path?: Record<string, string>;
  permissions?: Permissions;
  isBase64Encoded?: boolean;
}

function proxyEvent(options: EventOptions = {}): APIGatewayProxyEvent {
  const query = options.query;
  return {
    resource: '/things',
    path: '/things',
    httpMethod: 'POST',
    headers: options.headers ?? { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: query
      ? Object.fromEntries(
          Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? (v[v.length - 1] ?? '') : v]),
        )
      : null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]))
      : null,
    pathParameters: options.path ?? null,
    stageVariables: null,
    body: options.body === undefined ? null : options.body,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      authorizer: {
        ...toAuthorizerContext({
          workspaceId: 42,
          userId: 7,
          userEmail: null,
          permissions: options.permissions ?? EDIT_ALL,
        }),
        principalId: 'user:7',
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

const lambdaContext = { awsRequestId: 'req-123', functionName: 'test' } as Context;

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: any;
  text: string;
}

async function invoke(route: HttpHandler, options: EventOptions = {}): Promise<Answer> {
  const result: APIGatewayProxyResult = await route(proxyEvent(options), lambdaContext);
  return {
    status: result.statusCode,
    headers: result.headers ?? {},
    body: JSON.parse(result.body),
    text: result.body,
  };
}

const json = (value: unknown) => JSON.stringify(value);

const thingBody = z.object({
  name: z.string().check(z.maxLength(5)),
  count: z.int().check(z.gte(0)),
  note: z.optional(z.string()),
});

/** An edit route: answers what it was handed. */
const createThing = httpRoute({
  body: thingBody,
  query: z.partial(
    z.object({ dry_run: z._default(queryBoolean, false), tag: z.union([z.string(), z.array(z.string())]) }),
  ),
  permission: ['request_logs', 'edit'],
  status: 201,
  handle: async ({ body, rawBody, query, auth, requestId }) => ({ body, rawBody, query, auth, requestId }),
});

/** A read route with a path parameter. */
const readThing = httpRoute({
  path: z.object({ id: idParam }),
  permission: ['request_logs', 'read'],
  handle: async ({ path }) => ({ id: path.id }),
});

function expectErrorBody(answer: Answer, status: number, error: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['Content-Type']).toBe('application/json');
  expect(answer.body).toEqual({ success: false, message: expect.any(String), error });
  expect(answer.body.message.length).toBeGreaterThan(0);
}

beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('http wrapper: success', () => {
  it('answers the route status with the JSON of what the handler returned', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'abc', count: 2 }) });

    expect(answer.status).toBe(201);
    expect(answer.headers['Content-Type']).toBe('application/json');
    expect(answer.body.body).toEqual({ name: 'abc', count: 2 });
    expect(answer.body.auth).toEqual({ workspaceId: 42, userId: 7, userEmail: null, permissions: EDIT_ALL });
    expect(answer.body.requestId).toBe('req-123');
  });

  it('hands the route the body exactly as sent besides the validated one', async () => {
    const sent = { count: 1, name: 'ab', extra: { nested: [1, 'two', null] }, ключ: 'значение' };

    const answer = await invoke(createThing, { body: json(sent) });

    expect(answer.status).toBe(201);
    expect(answer.body.body).toEqual({ name: 'ab', count: 1 });
    expect(json(answer.body.rawBody)).toBe(json(sent));
  });

  it('passes the status, body and headers of an HttpResponse through', async () => {
    const accepted = httpRoute({
      permission: ['request_logs', 'read'],
      handle: async () => new HttpResponse(202, { queued: true }, { 'Retry-After': '5' }),
    });

    const answer = await invoke(accepted);

    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ queued: true });
    expect(answer.headers).toMatchObject({ 'Content-Type': 'application/json', 'Retry-After': '5' });
  });

  it('decodes percent-encoded path parameters, as API Gateway hands them over encoded', async () => {
    const named = httpRoute({
      path: z.object({ name: z.string() }),
      permission: ['prompts', 'read'],
      handle: async ({ path }) => ({ name: path.name }),
    });
    const answer = await invoke(named, { path: { name: 'my%20prompt%2Fv%C3%A9' } });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ name: 'my prompt/vé' });
  });

  it('answers 422 for a path parameter holding a lone UTF-16 surrogate, which would name another entity', async () => {
    const named = httpRoute({
      path: z.object({ name: z.string() }),
      permission: ['request_logs', 'read'],
      handle: async ({ path }) => path,
    });
    const answer = await invoke(named, { path: { name: 's\ud800' } });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ loc: ['path', 'name'] });
    expect(answer.body.message).toContain('well-formed Unicode');
    expect((await invoke(named, { path: { name: 's%EF%BF%BD' } })).body).toEqual({ name: 's\ufffd' });
  });

  it('answers 400 for a path parameter with broken percent-encoding', async () => {
    const answer = await invoke(readThing, { path: { id: '%E0%A4%A' } });

    expectErrorBody(answer, 400, 'invalid_path');
  });

  it('answers 200 when the route names no status', async () => {
    const answer = await invoke(readThing, { path: { id: '15' } });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: 15 });
  });

  it('decodes a base64-encoded body', async () => {
    const sent = { name: 'héllo', count: 3, note: '日本語 🎉' };

    const answer = await invoke(createThing, {
      body: Buffer.from(json(sent), 'utf-8').toString('base64'),
      isBase64Encoded: true,
    });

    expect(answer.status).toBe(201);
    expect(answer.body.body).toEqual(sent);
  });

  it.each([
    ['application/json; charset=utf-8'],
    ['application/vnd.api+json'],
    ['APPLICATION/JSON'],
    ['text/plain'],
  ])('accepts a JSON body sent as %s', async (contentType) => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 0 }),
      headers: { 'content-type': contentType },
    });

    expect(answer.status).toBe(201);
  });

  it('accepts a JSON body sent without a content type', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'a', count: 0 }), headers: {} });

    expect(answer.status).toBe(201);
  });
});

describe('http wrapper: bad bodies', () => {
  it.each([
    ['{"name": "a",'],
    ['{name: "a"}'],
    ["{'name': 'a'}"],
    ['not json at all'],
    ['{"name":"a","count":1}}'],
  ])('answers 400 with the error body for malformed JSON %j', async (body) => {
    const answer = await invoke(createThing, { body });

    expectErrorBody(answer, 400, 'invalid_json');
    expect(answer.body.message).toBe('Request body is not valid JSON');
  });

  it.each([
    ['an array', '[{"name":"a","count":1}]'],
    ['an empty array', '[]'],
    ['a string', '"hello"'],
    ['a number', '12'],
    ['a boolean', 'true'],
    ['null', 'null'],
  ])('answers 400 when the body is %s, not an object', async (_what, body) => {
    const answer = await invoke(createThing, { body });

    expectErrorBody(answer, 400, 'invalid_body');
    expect(answer.body.message).toBe('Request body must be a JSON object');
  });

  it.each([
    ['missing', null],
    ['empty', ''],
    ['whitespace', ' \n\t '],
  ])('answers 400 when the body is %s', async (_what, body) => {
    const answer = await invoke(createThing, { body });

    expectErrorBody(answer, 400, 'invalid_json');
    expect(answer.body.message).toBe('Request body is required');
  });

  it.each([
    ['missing', null],
    ['empty', ''],
    ['JSON null', 'null'],
  ])('reads a %s body as {} on a route whose body is optional', async (_what, body) => {
    const optional = httpRoute({
      body: z.object({ note: z.optional(z.string()) }),
      optionalBody: true,
      permission: ['request_logs', 'read'],
      handle: async ({ body, rawBody }) => ({ body, rawBody }),
    });

    const answer = await invoke(optional, { body });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ body: {}, rawBody: {} });
    expectErrorBody(await invoke(optional, { body: '[]' }), 400, 'invalid_body');
  });

  it('answers 400 when a base64 body does not decode to JSON', async () => {
    const answer = await invoke(createThing, {
      body: Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString('base64'),
      isBase64Encoded: true,
    });

    expectErrorBody(answer, 400, 'invalid_json');
  });

  it.each([
    ['application/xml'],
    ['multipart/form-data; boundary=x'],
    ['application/x-www-form-urlencoded'],
    ['application/jsonp'],
    ['image/png'],
  ])('answers 415 for a body sent as %s', async (contentType) => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      headers: { 'Content-Type': contentType },
    });

    expectErrorBody(answer, 415, 'unsupported_media_type');
  });

  it('answers 413 for a body over the Lambda payload ceiling', async () => {
    const body = json({ name: 'a', count: 1, note: 'x'.repeat(MAX_REQUEST_BODY_BYTES) });

    const answer = await invoke(createThing, { body });

    expectErrorBody(answer, 413, 'payload_too_large');
  });
});

describe('http wrapper: validation', () => {
  it('answers 422 with detail naming the field, its message and the issue type', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'a', count: -1 }) });

    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      success: false,
      message: expect.stringContaining('body.count'),
      error: 'validation_error',
      detail: [{ loc: ['body', 'count'], msg: expect.any(String), type: 'too_small' }],
    });
  });

  it('lists every failing field in detail', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'too long', count: 'x', note: 5 }) });

    expect(answer.status).toBe(422);
    const locs = answer.body.detail.map((issue: { loc: unknown[] }) => issue.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'name'],
        ['body', 'count'],
        ['body', 'note'],
      ]),
    );
    expect(locs).toHaveLength(3);
  });

  it('says "Field required" for a missing field', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'a' }) });

    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      { loc: ['body', 'count'], msg: 'Field required', type: 'invalid_type' },
    ]);
    expect(answer.body.message).toBe('Invalid body.count: Field required');
  });

  it('answers 422 at the query parameter when the query fails validation', async () => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      query: { dry_run: 'yes' },
    });

    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('validation_error');
    expect(answer.body.detail).toEqual([
      { loc: ['query', 'dry_run'], msg: expect.any(String), type: expect.any(String) },
    ]);
  });

  it.each([['abc'], ['0'], ['-3'], ['1.5'], ['99999999999999999']])(
    'answers 422 at the path parameter for id %j',
    async (id) => {
      const answer = await invoke(readThing, { path: { id } });

      expect(answer.status).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['path', 'id']);
    },
  );

  it.each([
    ['true', true],
    ['1', true],
    ['True', true],
    ['false', false],
    ['0', false],
    ['False', false],
  ])('reads query boolean %j as %s', async (raw, expected) => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      query: { dry_run: raw },
    });

    expect(answer.status).toBe(201);
    expect(answer.body.query.dry_run).toBe(expected);
  });

  it('uses the default of a query boolean that is not given', async () => {
    const answer = await invoke(createThing, { body: json({ name: 'a', count: 1 }) });

    expect(answer.status).toBe(201);
    expect(answer.body.query).toEqual({ dry_run: false });
  });

  it.each([['yes'], ['no'], [''], ['TRUE ']])('answers 422 for query boolean %j', async (raw) => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      query: { dry_run: raw },
    });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', 'dry_run']);
  });

  it('hands a repeated query parameter over as a list', async () => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      query: { tag: ['a', 'b'] },
    });

    expect(answer.status).toBe(201);
    expect(answer.body.query.tag).toEqual(['a', 'b']);
  });

  it('reads query parameters named like object properties as plain parameters, polluting nothing', async () => {
    // API Gateway's event is parsed JSON, in which `__proto__` is an own property like any other.
    const event = proxyEvent({ body: json({ name: 'a', count: 1 }) });
    event.queryStringParameters = JSON.parse('{"__proto__":"z","constructor":"c","toString":"t","tag":"a"}');
    event.multiValueQueryStringParameters = JSON.parse(
      '{"__proto__":["x","z"],"constructor":["c"],"toString":["t"],"tag":["a"]}',
    );
    const result = await createThing(event, lambdaContext);

    expect(result.statusCode, result.body).toBe(201);
    expect(JSON.parse(result.body).query).toEqual({ dry_run: false, tag: 'a' });
    expect(({} as Record<string, unknown>).length).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it('hands query parameters named like object properties over as the client sent them', async () => {
    const echoQuery = httpRoute({
      query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
      permission: ['request_logs', 'read'],
      handle: async ({ query }) => ({ query }),
    });
    const event = proxyEvent();
    // Only the single-value map names these: lookups in the other must not find Object.prototype's members.
    event.queryStringParameters = JSON.parse('{"__proto__":"p","__defineGetter__":"g","constructor":"c"}');
    event.multiValueQueryStringParameters = null;
    const result = await echoQuery(event, lambdaContext);

    expect(result.statusCode, result.body).toBe(200);
    expect(JSON.parse(result.body).query).toMatchObject({ __defineGetter__: 'g', constructor: 'c' });
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe('http wrapper: permissions', () => {
  it('answers 403 when the key may only read and the route edits', async () => {
    const answer = await invoke(createThing, {
      body: json({ name: 'a', count: 1 }),
      permissions: { request_logs: 'read' },
    });

    expectErrorBody(answer, 403, 'forbidden');
  });

  it('answers 403 when the key has no access to the entity type', async () => {
    const answer = await invoke(readThing, { path: { id: '1' }, permissions: { prompts: 'edit' } });

    expectErrorBody(answer, 403, 'forbidden');
  });

  it('lets a read-only key use a read route', async () => {
    const answer = await invoke(readThing, { path: { id: '1' }, permissions: { request_logs: 'read' } });

    expect(answer.status).toBe(200);
  });

  it('lets an edit key use a read route', async () => {
    const answer = await invoke(readThing, { path: { id: '1' }, permissions: { request_logs: 'edit' } });

    expect(answer.status).toBe(200);
  });
});

/** A move route: every kind named in the body needs edit, as a folder move does. */
const moveThings = httpRoute({
  body: z.object({
    entities: z.array(z.object({ id: z.int(), type: z.enum(['PROMPT', 'DATASET']) })).check(z.minLength(1)),
  }),
  permission: (body) =>
    body.entities.map(({ type }) => kindPermission(kindOfFolderType(type) ?? 'folder', 'edit')),
  tag: 'folders',
  handle: async ({ body }) => ({ moved_count: body.entities.length }),
});
const twoKinds = json({
  entities: [
    { id: 1, type: 'PROMPT' },
    { id: 2, type: 'DATASET' },
  ],
});

describe('http wrapper: permissions that depend on the body', () => {
  it('runs the route when the key may edit every type the body names', async () => {
    const answer = await invoke(moveThings, {
      body: twoKinds,
      permissions: { prompts: 'edit', datasets: 'edit' },
    });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ moved_count: 2 });
  });

  it('answers 403 naming the first type the key may not edit', async () => {
    const handle = vi.fn();
    const route = httpRoute({ ...moveThings.definition, handle } as typeof moveThings.definition);
    const answer = await invoke(route, {
      body: twoKinds,
      permissions: { prompts: 'read', datasets: 'edit' },
    });

    expectErrorBody(answer, 403, 'forbidden');
    expect(answer.body.message).toBe('This API key may not edit prompts');
    expect(handle).not.toHaveBeenCalled();
  });

  it('names a type the key has no access to at all', async () => {
    const answer = await invoke(moveThings, { body: twoKinds, permissions: { prompts: 'edit' } });

    expectErrorBody(answer, 403, 'forbidden');
    expect(answer.body.message).toBe('This API key may not edit datasets');
  });

  it('validates the body before asking for its permissions (an invalid body is a 422, not a 403)', async () => {
    const answer = await invoke(moveThings, { body: json({ entities: [] }), permissions: {} });

    expect(answer.status).toBe(422);
  });

  it('needs nothing for a body that names no type', async () => {
    const anyBody = httpRoute({
      body: z.object({ types: z.array(z.enum(['REPORT'])) }),
      permission: (body) => body.types.map(() => kindPermission('report', 'read')),
      handle: async () => ({ ok: true }),
    });

    expect((await invoke(anyBody, { body: json({ types: [] }), permissions: {} })).status).toBe(200);
    expect((await invoke(anyBody, { body: json({ types: ['REPORT'] }), permissions: {} })).status).toBe(403);
  });
});

describe('http wrapper: errors of the route', () => {
  it('answers 500 "Internal error" without the message of an unexpected error, and logs it', async () => {
    const failing = httpRoute({
      permission: ['request_logs', 'read'],
      handle: async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.12:5432 password=hunter2');
      },
    });

    const answer = await invoke(failing);

    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ success: false, message: 'Internal error', error: 'internal_error' });
    expect(answer.text).not.toContain('hunter2');
    expect(answer.text).not.toContain('ECONNREFUSED');
    expect(answer.text).not.toContain('stack');
    expect(logger.error).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({ requestId: 'req-123' }),
    );
  });

  it('answers 500 without internals when a non-Error value is thrown', async () => {
    const failing = httpRoute({
      permission: ['request_logs', 'read'],
      handle: async () => {
        throw { secret: 'hunter2' };
      },
    });

    const answer = await invoke(failing);

    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('hunter2');
  });

  it('answers the status and message of an AppError the route throws', async () => {
    const missing = httpRoute({
      permission: ['request_logs', 'read'],
      handle: async () => {
        throw notFound('Request 9 not found');
      },
    });

    const answer = await invoke(missing);

    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, message: 'Request 9 not found', error: 'not_found' });
  });
});

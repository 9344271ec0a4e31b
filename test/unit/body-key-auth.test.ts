import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { authenticateApiKey, clearKeyCache, MAX_CACHED_KEYS } from '#shared/auth/key-cache.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#shared/platform/config.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { logger } from '#shared/platform/logger.ts';

/**
 * The HTTP wrapper's body-key authentication (routes declared `auth: 'body'`, which have no gateway
 * authorizer): the key from the JSON body's `api_key` or else the X-API-KEY header, looked up as the
 * authorizer does and cached for the authorizer's TTL; the key never reaches the route.
 */
process.env.TABLE_NAME = 'promptops-unit';

const ddb = mockClient(DynamoDBDocumentClient);

const KEY = 'pl_body-key-0123456789abcdef';
const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const keyItem = (overrides: Record<string, unknown> = {}) => ({
  PK: `APIKEY#${hashOf(KEY)}`,
  SK: 'APIKEY',
  workspaceId: 42,
  userId: 7,
  permissions: { request_logs: 'edit' },
  ...overrides,
});

/** A body-key route that answers what it was handed. */
const route = httpRoute({
  auth: 'body',
  keyCheck: authenticateApiKey,
  body: z.looseObject({ request_id: z.int() }),
  permission: ['request_logs', 'edit'],
  handle: async ({ body, rawBody, auth }) => ({ body, rawBody, auth }),
});

function event(body: unknown, headers: Record<string, string> = {}): APIGatewayProxyEvent {
  return {
    resource: '/library-track-score',
    path: '/library-track-score',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    // No authorizer ran: the gateway has none for these routes.
    requestContext: { authorizer: null } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

async function invoke(body: unknown, headers?: Record<string, string>) {
  const result = await route(event(body, headers), { awsRequestId: 'req-1' } as Context);
  return { status: result.statusCode, body: JSON.parse(result.body), text: result.body };
}

const lookups = () => ddb.commandCalls(GetCommand).length;

beforeEach(() => {
  ddb.reset();
  clearKeyCache();
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('body-key routes', () => {
  it("authenticate with the body's api_key, looked up by its hash, and hand the route a body without it", async () => {
    ddb.on(GetCommand).resolves({ Item: keyItem() });
    const answer = await invoke({ api_key: KEY, request_id: 5, note: 'kept' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      body: { request_id: 5, note: 'kept' },
      rawBody: { request_id: 5, note: 'kept' },
      auth: { workspaceId: 42, userId: 7, userEmail: null, permissions: { request_logs: 'edit' } },
    });
    expect(ddb).toHaveReceivedCommandWith(GetCommand, { Key: { PK: `APIKEY#${hashOf(KEY)}`, SK: 'APIKEY' } });
  });

  it("hand the route the user's e-mail address as the authorizer does", async () => {
    ddb.on(GetCommand).resolves({ Item: keyItem({ email: 'ada@example.com' }) });
    const answer = await invoke({ api_key: KEY, request_id: 5 });
    expect(answer.body.auth).toMatchObject({ userId: 7, userEmail: 'ada@example.com' });
  });

  it('fall back to the X-API-KEY header when the body has no key; the body key wins when both are there', async () => {
    ddb
      .on(GetCommand)
      .callsFake((input) =>
        input.Key.PK === `APIKEY#${hashOf(KEY)}` ? { Item: keyItem() } : { Item: undefined },
      );
    expect((await invoke({ request_id: 1 }, { 'X-API-KEY': KEY })).status).toBe(200);
    expect((await invoke({ request_id: 1, api_key: 'pl_other' }, { 'x-api-key': KEY })).status).toBe(401);
  });

  it('answer 401 "Missing API key" without a key in the body or header, before any lookup', async () => {
    for (const body of [
      { request_id: 1 },
      { request_id: 1, api_key: '' },
      { request_id: 1, api_key: null },
    ]) {
      const answer = await invoke(body);
      expect(answer).toMatchObject({
        status: 401,
        body: { success: false, message: 'Missing API key', error: 'unauthorized' },
      });
    }
    expect(lookups()).toBe(0);
  });

  it('answer 401 "Invalid API key" for an unknown, revoked or non-string key, never echoing it', async () => {
    ddb.on(GetCommand).resolves({ Item: undefined });
    const unknown = await invoke({ api_key: 'pl_unknown-key', request_id: 1 });
    expect(unknown).toMatchObject({
      status: 401,
      body: { message: 'Invalid API key', error: 'unauthorized' },
    });
    expect(unknown.text).not.toContain('pl_unknown-key');

    ddb.on(GetCommand).resolves({ Item: keyItem({ revokedAt: '2026-01-01T00:00:00Z' }) });
    expect((await invoke({ api_key: KEY, request_id: 1 })).body.message).toBe('Invalid API key');
    expect((await invoke({ api_key: 12345, request_id: 1 })).body.message).toBe('Invalid API key');

    const logged = JSON.stringify(vi.mocked(logger.warn).mock.calls);
    expect(logged).not.toContain('pl_unknown-key');
    expect(logged).not.toContain(KEY);
  });

  it('answer 403 when the key may not edit the entity the route changes', async () => {
    ddb.on(GetCommand).resolves({ Item: keyItem({ permissions: { request_logs: 'read' } }) });
    expect(await invoke({ api_key: KEY, request_id: 1 })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
  });

  it('validate the body after the key: a bad body with a good key is a 422 that does not name the key', async () => {
    ddb.on(GetCommand).resolves({ Item: keyItem() });
    const answer = await invoke({ api_key: KEY, request_id: 'x' });
    expect(answer).toMatchObject({ status: 422, body: { error: 'validation_error' } });
    expect(answer.text).not.toContain(KEY);
  });
});

describe('the decision cache', () => {
  it('looks a key up once per TTL: a revoked key keeps working until the decision expires, as at the gateway', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    ddb.on(GetCommand).resolves({ Item: keyItem() });
    expect((await invoke({ api_key: KEY, request_id: 1 })).status).toBe(200);

    ddb.on(GetCommand).resolves({ Item: keyItem({ revokedAt: '2026-01-01T00:00:01Z' }) });
    vi.setSystemTime(Date.now() + (AUTHORIZER_CACHE_TTL_SECONDS - 1) * 1000);
    expect((await invoke({ api_key: KEY, request_id: 1 })).status).toBe(200);
    expect(lookups()).toBe(1);

    vi.setSystemTime(Date.now() + 2000);
    expect((await invoke({ api_key: KEY, request_id: 1 })).status).toBe(401);
    expect(lookups()).toBe(2);
  });

  it('remembers a refusal for the TTL too', async () => {
    ddb.on(GetCommand).resolves({ Item: undefined });
    await invoke({ api_key: 'pl_unknown', request_id: 1 });
    await invoke({ api_key: 'pl_unknown', request_id: 1 });
    expect(lookups()).toBe(1);
  });

  it(`keeps at most ${MAX_CACHED_KEYS} decisions, dropping the oldest`, async () => {
    ddb.on(GetCommand).resolves({ Item: undefined });
    for (let i = 0; i <= MAX_CACHED_KEYS; i++) await invoke({ api_key: `pl_key-${i}`, request_id: 1 });
    expect(lookups()).toBe(MAX_CACHED_KEYS + 1);
    await invoke({ api_key: `pl_key-${MAX_CACHED_KEYS}`, request_id: 1 }); // newest: still cached
    expect(lookups()).toBe(MAX_CACHED_KEYS + 1);
    await invoke({ api_key: 'pl_key-0', request_id: 1 }); // oldest: dropped, looked up again
    expect(lookups()).toBe(MAX_CACHED_KEYS + 2);
  });
});

describe('header-key routes', () => {
  it("never hand a body's api_key to the route either (log-request would store it as an extra field)", async () => {
    const headerRoute = httpRoute({
      body: z.looseObject({ request_id: z.int() }),
      permission: ['request_logs', 'edit'],
      handle: async ({ body, rawBody }) => ({ body, rawBody }),
    });
    const withAuthorizer = {
      ...event({ api_key: KEY, request_id: 3 }),
      requestContext: {
        authorizer: { workspaceId: '42', userId: '7', permissions: '{"request_logs":"edit"}' },
      } as unknown as APIGatewayProxyEvent['requestContext'],
    };
    const result = await headerRoute(withAuthorizer, { awsRequestId: 'req-2' } as Context);
    expect(JSON.parse(result.body)).toEqual({ body: { request_id: 3 }, rawBody: { request_id: 3 } });
    expect(lookups()).toBe(0);
  });
});

import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler } from '#functions/authorizer.ts';
import {
  ENTITY_TYPES,
  FULL_ACCESS,
  fromAuthorizerContext,
  grantedAsStored,
  type Permissions,
  READ_ONLY,
} from '#shared/platform/auth-context.ts';

/**
 * The key authorizer with the table mocked: what API Gateway receives back (effect, resource, context)
 * for a known, unknown, revoked and missing key.
 */
process.env.TABLE_NAME = 'promptops-unit';

const ddb = mockClient(DynamoDBDocumentClient);

const KEY = 'pl_unit-test-key-0123456789abcdef';
const KEY_HASH = createHash('sha256').update(KEY, 'utf8').digest('hex');
const API_ARN = 'arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5';
const STAGE = 'prod';
const PERMISSIONS = { request_logs: 'edit', prompts: 'read' };

function authorizerEvent(
  headers: Record<string, string> | null,
  method = 'POST',
  path = '/log-request',
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: `${API_ARN}/${STAGE}/${method}${path}`,
    resource: path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: headers && Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

function storeKey(item: Record<string, unknown> = {}) {
  ddb.on(GetCommand, { Key: { PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY' } }).resolves({
    Item: {
      PK: `APIKEY#${KEY_HASH}`,
      SK: 'APIKEY',
      keyId: 3,
      workspaceId: 42,
      userId: 7,
      prefix: KEY.slice(0, 7),
      permissions: PERMISSIONS,
      createdAt: '2024-01-01T00:00:00.000Z',
      revokedAt: null,
      ...item,
    },
  });
}

const effectOf = (result: APIGatewayAuthorizerResult) =>
  result.policyDocument.Statement.map((statement) => statement.Effect);
const resourcesOf = (result: APIGatewayAuthorizerResult) =>
  result.policyDocument.Statement.flatMap((statement) =>
    'Resource' in statement && statement.Resource ? ([] as string[]).concat(statement.Resource) : [],
  );

/** True when an IAM resource pattern (with `*` wildcards) covers the ARN. */
function covers(pattern: string, arn: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
  return regex.test(arn);
}
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
});

describe('key authorizer', () => {
  it('allows a known key and hands the workspace, user and permissions to the routes', async () => {
    storeKey();

    const result = await handler(authorizerEvent({ 'X-API-KEY': KEY }));

    expect(effectOf(result)).toEqual(['Allow']);
    expect(result.context).toEqual({
      workspaceId: '42',
      userId: '7',
      userEmail: '',
      permissions: JSON.stringify(PERMISSIONS),
    });
    expect(result.principalId).toBe('user:7');
  });

  it("hands the routes the user's e-mail address when the key has one", async () => {
    storeKey({ email: 'Ada@Example.com' });

    const result = await handler(authorizerEvent({ 'X-API-KEY': KEY }));

    expect(result.context).toMatchObject({ userId: '7', userEmail: 'Ada@Example.com' });
    expect(fromAuthorizerContext(result.context)).toMatchObject({ userId: 7, userEmail: 'Ada@Example.com' });
  });

  it('reads a context without an address (a decision cached before contexts carried one) as no address', () => {
    const old = { workspaceId: '42', userId: '7', permissions: JSON.stringify(PERMISSIONS) };
    expect(fromAuthorizerContext(old)).toEqual({
      workspaceId: 42,
      userId: 7,
      userEmail: null,
      permissions: PERMISSIONS,
    });
  });

  it('allows with a policy that covers every route of the stage, so one cached decision serves them all', async () => {
    storeKey();

    const result = await handler(authorizerEvent({ 'X-API-KEY': KEY }, 'POST', '/log-request'));

    // API Gateway caches this policy per key (300 s) and applies it to the next requests with that key,
    // whatever their method and path: a route the resource does not cover answers 403 until it expires.
    const routes = [
      'POST/log-request',
      'GET/api/public/v2/requests/12',
      'GET/prompt-templates/my-prompt',
      'PATCH/reports/4/rename',
    ];
    const uncovered = routes.filter(
      (route) => !resourcesOf(result).some((resource) => covers(resource, `${API_ARN}/${STAGE}/${route}`)),
    );
    expect(uncovered).toEqual([]);
    expect(
      resourcesOf(result).some((resource) => covers(resource, `${API_ARN}/other-stage/GET/workflows`)),
    ).toBe(false);
  });

  it('looks the key up by its SHA-256, never by the plaintext', async () => {
    storeKey();

    await handler(authorizerEvent({ 'X-API-KEY': KEY }));

    expect(ddb).toHaveReceivedCommandTimes(GetCommand, 1);
    expect(ddb).toHaveReceivedCommandWith(GetCommand, {
      TableName: 'promptops-unit',
      Key: { PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY' },
    });
    expect(JSON.stringify(ddb.commandCalls(GetCommand)[0]?.args[0].input)).not.toContain(KEY);
  });

  it('never puts the plaintext key in the returned policy or context', async () => {
    storeKey();

    const allowed = await handler(authorizerEvent({ 'X-API-KEY': KEY }));
    const denied = await handler(authorizerEvent({ 'X-API-KEY': `${KEY}-wrong` }));

    expect(JSON.stringify(allowed)).not.toContain(KEY);
    expect(JSON.stringify(allowed)).not.toContain(KEY_HASH);
    expect(JSON.stringify(denied)).not.toContain(KEY);
  });

  it('denies an unknown key', async () => {
    storeKey();

    const result = await handler(authorizerEvent({ 'X-API-KEY': 'pl_not-a-key-we-issued' }));

    expect(effectOf(result)).toEqual(['Deny']);
    expect(result.context).toBeUndefined();
  });

  it('denies a revoked key', async () => {
    storeKey({ revokedAt: '2024-02-01T00:00:00.000Z' });

    const result = await handler(authorizerEvent({ 'X-API-KEY': KEY }));

    expect(effectOf(result)).toEqual(['Deny']);
    expect(result.context).toBeUndefined();
  });

  it('denies a request without the header and does not touch the table', async () => {
    storeKey();

    const withoutKey: (Record<string, string> | null)[] = [
      null,
      {},
      { 'Content-Type': 'application/json' },
      { 'X-API-KEY': '' },
    ];
    for (const headers of withoutKey) {
      const result = await handler(authorizerEvent(headers));
      expect(effectOf(result), JSON.stringify(headers)).toEqual(['Deny']);
      expect(result.context).toBeUndefined();
    }
    expect(ddb).not.toHaveReceivedCommand(GetCommand);
  });

  it('reads the header whatever its case', async () => {
    storeKey();

    for (const name of ['x-api-key', 'X-Api-Key', 'X-API-KEY', 'x-API-key']) {
      const result = await handler(authorizerEvent({ [name]: KEY }));
      expect(effectOf(result), name).toEqual(['Allow']);
      expect(result.context?.workspaceId).toBe('42');
    }
  });
});

describe('a key stored before an entity type existed', () => {
  const first8 = ENTITY_TYPES.slice(0, 8);
  const map = (types: readonly string[], access: 'read' | 'edit') =>
    Object.fromEntries(types.map((type) => [type, access])) as Permissions;

  it('is handed to the routes with the types added since (the authorizer)', async () => {
    storeKey({ permissions: map(first8, 'edit') });
    const result = await handler(authorizerEvent({ 'X-API-KEY': KEY }));
    expect(JSON.parse(String(result.context?.permissions))).toEqual(FULL_ACCESS);
  });

  it('keeps full access (or read-only) for the types added since', () => {
    expect(grantedAsStored(map(first8, 'edit'))).toEqual(FULL_ACCESS);
    expect(grantedAsStored(map(first8, 'read'))).toEqual(READ_ONLY);
  });

  it('gives a key granted some types nothing more', () => {
    expect(grantedAsStored({ prompts: 'edit' })).toEqual({ prompts: 'edit' });
    const mixed = { ...map(first8, 'edit'), prompts: 'read' as const };
    expect(grantedAsStored(mixed)).toEqual(mixed);
    const notPrefix = map(['prompts', ...first8.slice(2)], 'edit');
    expect(grantedAsStored(notPrefix)).toEqual(notPrefix);
    expect(grantedAsStored({})).toEqual({});
  });
});

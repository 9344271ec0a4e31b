import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES, type Permissions, READ_ONLY } from '#shared/platform/auth-context.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Provider keys through the local gateway: write-only (hints, never the key, in answers and at rest),
 * base URLs checked by the outbound guard, delete, workspace isolation and permissions.
 */
const BASE = '/api/public/v2/provider-keys';
const KEY = 'sk-proj-e2e-secret-value-WXYZ';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

/** The stored item of a workspace's provider key, straight from the table. */
async function storedItem(workspaceId: number, provider: string) {
  const client = new DynamoDBClient({ endpoint: service.dynamodbEndpoint });
  const answer = await client.send(
    new GetItemCommand({
      TableName: service.tableName,
      Key: { PK: { S: `W#${workspaceId}#PROVKEY` }, SK: { S: `P#${provider}` } },
    }),
  );
  return answer.Item;
}

describe('setting and reading a key', () => {
  it('answers a hint, never the key, and stores the key sealed', async () => {
    const put = await service.call('PUT', `${BASE}/openai`, { body: { api_key: KEY } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      success: true,
      provider_key: {
        provider: 'openai',
        api_key_hint: '...WXYZ',
        base_url: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });

    const list = await service.call('GET', BASE);
    expect(list.status).toBe(200);
    expect(list.body.provider_keys).toEqual([put.body.provider_key]);
    const one = await service.call('GET', `${BASE}/openai`);
    expect(one.body.provider_key).toEqual(put.body.provider_key);
    for (const answer of [put, list, one])
      expect(JSON.stringify(answer.body)).not.toContain(KEY.slice(0, -4));

    const item = await storedItem(service.workspaceId, 'openai');
    expect(JSON.stringify(item)).not.toContain(KEY.slice(0, -4));
    expect(item?.keySealed?.S).toMatch(/^v1\./);
  });

  it('replaces a key, keeping its creation time, and takes a workspace base URL', async () => {
    const first = await service.call('PUT', `${BASE}/anthropic`, { body: { api_key: 'sk-ant-first-0001' } });
    const second = await service.call('PUT', `${BASE}/Anthropic`, {
      body: { api_key: 'sk-ant-second-0002', base_url: 'https://llm-proxy.example.com/' },
    });
    expect(second.status).toBe(200);
    expect(second.body.provider_key).toMatchObject({
      provider: 'anthropic',
      api_key_hint: '...0002',
      base_url: 'https://llm-proxy.example.com',
      created_at: first.body.provider_key.created_at,
    });
  });
});

describe('refused without writing anything', () => {
  it.each([
    ['a private address', 'https://10.0.0.7/v1'],
    ['the metadata address', 'http://169.254.169.254/latest'],
    ['loopback', 'https://127.0.0.1:8443/v1'],
    ['localhost', 'https://localhost/v1'],
    ['plain http', 'http://llm-proxy.example.com/v1'],
    ['userinfo', 'https://user:pass@llm-proxy.example.com/v1'],
  ])('a base_url to %s is a 422', async (_what, baseUrl) => {
    const answer = await service.rejected('PUT', `${BASE}/openai`, {
      body: { api_key: KEY, base_url: baseUrl },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false, error: 'validation_error' });
  });

  it.each([
    ['no api_key', {}],
    ['a short key', { api_key: 'abc' }],
    ['a key with spaces', { api_key: 'sk-has some spaces-1234' }],
    ['an unknown field', { api_key: KEY, organization: 'org' }],
  ])('%s is a 422 that does not echo the key', async (_what, body: { api_key?: string }) => {
    const answer = await service.rejected('PUT', `${BASE}/openai`, { body });
    expect(answer.status).toBe(422);
    const text = JSON.stringify(answer.body);
    if (body.api_key !== undefined) expect(text).not.toContain(body.api_key);
  });

  it('an unknown provider is a 404', async () => {
    const answer = await service.rejected('PUT', `${BASE}/gemini`, { body: { api_key: KEY } });
    expect(answer.status).toBe(404);
    expect(answer.body.message).toMatch(/openai, anthropic/);
    expect((await service.call('GET', `${BASE}/gemini`)).status).toBe(404);
  });
});

describe('deleting a key', () => {
  it('removes it; reading or deleting it again is a 404', async () => {
    await service.call('PUT', `${BASE}/openai`, { body: { api_key: KEY } });
    const deleted = await service.call('DELETE', `${BASE}/openai`);
    expect(deleted).toMatchObject({ status: 200, body: { success: true } });
    expect((await service.call('GET', `${BASE}/openai`)).status).toBe(404);
    expect((await service.rejected('DELETE', `${BASE}/openai`)).status).toBe(404);
    const list = await service.call('GET', BASE);
    expect(list.body.provider_keys.map((key: { provider: string }) => key.provider)).not.toContain('openai');
  });
});

describe('isolation and permissions', () => {
  it("never shows or touches another workspace's keys", async () => {
    await service.call('PUT', `${BASE}/openai`, { body: { api_key: KEY } });
    const other = await service.otherWorkspaceKey('provider-keys-other');
    expect((await service.call('GET', BASE, { key: other })).body.provider_keys).toEqual([]);
    expect((await service.call('GET', `${BASE}/openai`, { key: other })).status).toBe(404);
    expect((await service.rejected('DELETE', `${BASE}/openai`, { key: other })).status).toBe(404);
    const theirs = await service.call('PUT', `${BASE}/openai`, {
      key: other,
      body: { api_key: 'sk-other-ws-7777' },
    });
    expect(theirs.body.provider_key.api_key_hint).toBe('...7777');
    expect((await service.call('GET', `${BASE}/openai`)).body.provider_key.api_key_hint).toBe('...WXYZ');
  });

  it('a read-only key reads hints and cannot set or delete', async () => {
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    expect((await service.call('GET', BASE, { key: readOnly })).status).toBe(200);
    const put = await service.rejected('PUT', `${BASE}/openai`, { key: readOnly, body: { api_key: KEY } });
    expect(put.status).toBe(403);
    expect((await service.rejected('DELETE', `${BASE}/openai`, { key: readOnly })).status).toBe(403);
  });

  it('a key without provider_keys access is refused; a full key made before provider_keys existed may edit', async () => {
    const promptsOnly = await service.keyWithPermissions({ prompts: 'edit' });
    expect((await service.call('GET', BASE, { key: promptsOnly })).status).toBe(403);
    const before: Permissions = Object.fromEntries(
      ENTITY_TYPES.slice(0, ENTITY_TYPES.indexOf('provider_keys')).map((type) => [type, 'edit']),
    );
    const oldFull = await service.keyWithPermissions(before);
    const put = await service.call('PUT', `${BASE}/anthropic`, {
      key: oldFull,
      body: { api_key: 'sk-ant-old-key-5555' },
    });
    expect(put.status).toBe(200);
  });
});

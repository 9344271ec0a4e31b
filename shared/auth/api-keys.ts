import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AuthContext,
  FULL_ACCESS,
  grantedAsStored,
  type Permissions,
} from '#shared/platform/auth-context.ts';
import { dynamo, isConditionFailed, table } from '#shared/platform/dynamo.ts';
import { nextId } from '#shared/platform/ids.ts';

/**
 * API keys and the workspaces they belong to. A key is stored only as its SHA-256: the item is found
 * by hash, so the plaintext exists once, in the answer to `create`.
 *
 * Items: `APIKEY#<sha256>` / `APIKEY` (listed per workspace through GSI1 `W#<ws>#APIKEYS`),
 * `W#<ws>` / `WORKSPACE`, and `WSNAME#<name>` / `WSNAME` (the unique name of a workspace).
 */
export interface ApiKeySummary {
  keyId: number;
  workspaceId: number;
  userId: number;
  /** The first characters of the key, enough for a person to tell keys apart. */
  prefix: string;
  permissions: Permissions;
  createdAt: string;
  revokedAt: string | null;
}

export const hashApiKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const keyItemKey = (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
const workspaceKeysIndex = (workspaceId: number) => `W#${workspaceId}#APIKEYS`;

/** Resolves a presented key; undefined for an unknown or revoked key. */
export function findApiKey(key: string): Promise<AuthContext | undefined> {
  return findApiKeyByHash(hashApiKey(key));
}

/** As findApiKey, for a key already hashed (hashApiKey). */
export async function findApiKeyByHash(hash: string): Promise<AuthContext | undefined> {
  const { Item } = await dynamo.send(new GetCommand({ TableName: table(), Key: keyItemKey(hash) }));
  if (!Item || Item.revokedAt) return undefined;
  return {
    workspaceId: Item.workspaceId,
    userId: Item.userId,
    permissions: grantedAsStored(Item.permissions),
  };
}

/** Creates a key for a workspace; returns the plaintext key (shown once) and its summary. */
export async function createApiKey(
  workspaceId: number,
  options: { permissions?: Permissions; userId?: number; key?: string } = {},
): Promise<{ key: string; summary: ApiKeySummary }> {
  const key = options.key ?? `pl_${randomBytes(24).toString('base64url')}`;
  const keyId = await nextId('api_key');
  const summary: ApiKeySummary = {
    keyId,
    workspaceId,
    userId: options.userId ?? (await nextId('user')),
    prefix: key.slice(0, 7),
    permissions: options.permissions ?? FULL_ACCESS,
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...keyItemKey(hashApiKey(key)),
        GSI1PK: workspaceKeysIndex(workspaceId),
        GSI1SK: `APIKEY#${String(keyId).padStart(16, '0')}`,
        // revokedAt is absent until a revoke sets it (a stored null would count as set).
        ...{ ...summary, revokedAt: undefined },
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return { key, summary };
}

/** True when this exact key is already stored (seeding a fixed key must not create it twice). */
export async function apiKeyExists(key: string): Promise<boolean> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: keyItemKey(hashApiKey(key)) }),
  );
  return Boolean(Item);
}

export async function listApiKeys(workspaceId: number): Promise<ApiKeySummary[]> {
  const items: ApiKeySummary[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': workspaceKeysIndex(workspaceId) },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) items.push(toSummary(item));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}

/** Revokes a key by id; false when the workspace has no such key. */
export async function revokeApiKey(workspaceId: number, keyId: number): Promise<boolean> {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
      ExpressionAttributeValues: {
        ':pk': workspaceKeysIndex(workspaceId),
        ':sk': `APIKEY#${String(keyId).padStart(16, '0')}`,
      },
    }),
  );
  const item = Items?.[0];
  if (!item) return false;
  await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: { PK: item.PK, SK: item.SK },
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
  return true;
}

function toSummary(item: Record<string, unknown>): ApiKeySummary {
  return {
    keyId: item.keyId as number,
    workspaceId: item.workspaceId as number,
    userId: item.userId as number,
    prefix: item.prefix as string,
    permissions: grantedAsStored(item.permissions as Permissions),
    createdAt: item.createdAt as string,
    revokedAt: (item.revokedAt as string | undefined) ?? null,
  };
}

/** The id of the workspace of that name, if there is one. */
export async function findWorkspace(name: string): Promise<number | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: { PK: `WSNAME#${name}`, SK: 'WSNAME' }, ConsistentRead: true }),
  );
  return Item?.workspaceId as number | undefined;
}

/** Finds the workspace of that name, creating it when new; the name item makes names unique. */
export async function ensureWorkspace(name: string): Promise<{ workspaceId: number; created: boolean }> {
  const nameKey = { PK: `WSNAME#${name}`, SK: 'WSNAME' };
  const existing = await dynamo.send(
    new GetCommand({ TableName: table(), Key: nameKey, ConsistentRead: true }),
  );
  if (existing.Item) return { workspaceId: existing.Item.workspaceId as number, created: false };
  const workspaceId = await nextId('workspace');
  try {
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: { ...nameKey, workspaceId },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if (isConditionFailed(error)) return ensureWorkspace(name); // another caller claimed the name first
    throw error;
  }
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        PK: `W#${workspaceId}`,
        SK: 'WORKSPACE',
        workspaceId,
        name,
        createdAt: new Date().toISOString(),
      },
    }),
  );
  return { workspaceId, created: true };
}

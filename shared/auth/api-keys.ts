import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AuthContext,
  FULL_ACCESS,
  grantedAsStored,
  isValidEmail,
  type Permissions,
  sameEmail,
} from '#shared/platform/auth-context.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { nextId } from '#shared/platform/ids.ts';

/**
 * API keys and the workspaces they belong to. A key is stored only as its SHA-256: the item is found
 * by hash, so the plaintext exists once, in the answer to `create`.
 *
 * Items: `APIKEY#<sha256>` / `APIKEY` (listed per workspace through GSI1 `W#<ws>#APIKEYS`),
 * `W#<ws>` / `WORKSPACE`, and `WSNAME#<name>` / `WSNAME` (the unique name of a workspace). There is no
 * user item: a key item carries its user's id and, when the user has one, e-mail address (`email`), so
 * the authorizer learns both from the one GetItem it makes.
 */
export interface ApiKeySummary {
  keyId: number;
  workspaceId: number;
  userId: number;
  /** The user's e-mail address (every key of a user carries the same one); null for none. */
  email: string | null;
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
    // Keys made before users had addresses have no `email`.
    userEmail: (Item.email as string | undefined) ?? null,
    permissions: grantedAsStored(Item.permissions),
  };
}

/**
 * Creates a key for a workspace; returns the plaintext key (shown once) and its summary. The key is
 * for a new user unless `userId` names one, with the e-mail address `email` (checked by isValidEmail)
 * or none. A user's keys must share one address: createUserKey gives a new key of a user theirs.
 */
export async function createApiKey(
  workspaceId: number,
  options: { permissions?: Permissions; userId?: number; email?: string | null; key?: string } = {},
): Promise<{ key: string; summary: ApiKeySummary }> {
  const email = options.email ?? null;
  if (email !== null && !isValidEmail(email)) throw new Error(`"${email}" is not an e-mail address`);
  const key = options.key ?? `pl_${randomBytes(24).toString('base64url')}`;
  const keyId = await nextId('api_key');
  const summary: ApiKeySummary = {
    keyId,
    workspaceId,
    userId: options.userId ?? (await nextId('user')),
    email,
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
        // revokedAt is absent until a revoke sets it (a stored null would count as set); email when none.
        ...{ ...summary, revokedAt: undefined, email: email ?? undefined },
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return { key, summary };
}

/**
 * A user of the workspace as its keys know it (revoked keys included): its address, or undefined when
 * no key of the workspace belongs to that user.
 */
export async function findKeyUser(
  workspaceId: number,
  userId: number,
): Promise<{ userId: number; email: string | null } | undefined> {
  const key = (await listApiKeys(workspaceId)).find((candidate) => candidate.userId === userId);
  return key && { userId, email: key.email };
}

/** A key refused for its user: an unknown user, or an address other than the user's. */
export class KeyUserError extends Error {}

/**
 * Another key of an existing user of the workspace, carrying the user's address. `email`, when given,
 * must be that address (equal ignoring case): a user's keys never disagree on it. Throws a KeyUserError
 * naming what is wrong.
 */
export async function createUserKey(
  workspaceId: number,
  userId: number,
  options: { permissions?: Permissions; email?: string } = {},
): Promise<{ key: string; summary: ApiKeySummary }> {
  const user = await findKeyUser(workspaceId, userId);
  if (!user) throw new KeyUserError(`No user ${userId} in this workspace`);
  if (options.email !== undefined && (user.email === null || !sameEmail(user.email, options.email))) {
    throw new KeyUserError(
      `User ${userId} ${user.email === null ? 'has no e-mail address' : `has the address ${user.email}`}; ` +
        'every key of a user carries the same one',
    );
  }
  return createApiKey(workspaceId, { permissions: options.permissions, userId, email: user.email });
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
    email: (item.email as string | undefined) ?? null,
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
  const claimed = await unlessConditionFails(
    dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: { ...nameKey, workspaceId },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
  if (!claimed) return ensureWorkspace(name); // another caller claimed the name first
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

/** The stored summary of a presented key (its id and prefix, never the key); undefined when unknown. */
export async function findKeySummary(key: string): Promise<ApiKeySummary | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: keyItemKey(hashApiKey(key)) }),
  );
  return Item ? toSummary(Item) : undefined;
}

/** A workspace's name; undefined for a workspace without its item. */
export async function findWorkspaceName(workspaceId: number): Promise<string | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: { PK: `W#${workspaceId}`, SK: 'WORKSPACE' } }),
  );
  return Item?.name as string | undefined;
}

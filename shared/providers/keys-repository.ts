import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import type { ProviderName } from './providers.ts';

/**
 * Table access for a workspace's provider keys: one partition `W#<ws>#PROVKEY`, one item per provider
 * (`P#<provider>`), read whole by the list (at most one item per provider). The key is stored sealed
 * with the master key; only its last four characters are kept in clear, as the hint.
 */
type Item = Record<string, unknown>;

export interface ProviderKeyRecord {
  workspaceId: number;
  provider: ProviderName;
  /** The API key sealed for `provider-key:<ws>:<provider>` (master-key.ts). */
  keySealed: string;
  /** The key's last four characters. */
  keyHint: string;
  /** The workspace's own endpoint for this provider, or null for the deployment's. */
  baseUrl: string | null;
  createdAt: number;
  updatedAt: number;
}

const partition = (workspaceId: number) => `W#${workspaceId}#PROVKEY`;
const keyOf = (workspaceId: number, provider: ProviderName) => ({
  PK: partition(workspaceId),
  SK: `P#${provider}`,
});

function fromItem(item: Item): ProviderKeyRecord {
  return {
    workspaceId: Number(item.workspaceId),
    provider: item.provider as ProviderName,
    keySealed: String(item.keySealed),
    keyHint: String(item.keyHint),
    baseUrl: (item.baseUrl as string | null | undefined) ?? null,
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
  };
}

/** Sets (or replaces) a provider's key; the first set's creation time is kept. One UpdateItem. */
export async function putProviderKey(
  record: Omit<ProviderKeyRecord, 'createdAt' | 'updatedAt'>,
  now: number,
): Promise<ProviderKeyRecord> {
  const answer = await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: keyOf(record.workspaceId, record.provider),
      UpdateExpression:
        'SET workspaceId = :ws, provider = :provider, keySealed = :sealed, keyHint = :hint, baseUrl = :base, updatedAt = :now, createdAt = if_not_exists(createdAt, :now)',
      ExpressionAttributeValues: {
        ':ws': record.workspaceId,
        ':provider': record.provider,
        ':sealed': record.keySealed,
        ':hint': record.keyHint,
        ':base': record.baseUrl,
        ':now': now,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return fromItem(answer.Attributes ?? {});
}

export async function getProviderKey(
  workspaceId: number,
  provider: ProviderName,
): Promise<ProviderKeyRecord | undefined> {
  const answer = await dynamo.send(new GetCommand({ TableName: table(), Key: keyOf(workspaceId, provider) }));
  return answer.Item ? fromItem(answer.Item) : undefined;
}

/** Every provider key of the workspace, by provider name. One Query of a partition of at most a few items. */
export async function listProviderKeys(workspaceId: number): Promise<ProviderKeyRecord[]> {
  const answer = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partition(workspaceId) },
    }),
  );
  return (answer.Items ?? []).map(fromItem);
}

/** Deletes a provider's key; false when there was none. */
export async function deleteProviderKey(workspaceId: number, provider: ProviderName): Promise<boolean> {
  const deleted = await unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: keyOf(workspaceId, provider),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    ),
  );
  return deleted !== undefined;
}

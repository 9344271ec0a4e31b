import {
  GetCommand,
  paginateQuery,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { documentClient, dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';

/**
 * Table access for environment variables. One partition per scope: `W#<ws>#ENV` for the workspace's,
 * `W#<ws>#ENV#TL#<toolId>` for a tool's. In it, one item per variable (`EV#<id>`, the value sealed with
 * the master key), a claim per key name (`KEY#<key>`, so a name is taken once even by concurrent
 * creates) and the scope's counter (`COUNT`, at most MAX_ENV_VARS_PER_SCOPE). A create or delete
 * writes the three in one transaction. The list (and a run's environment) is one Query of the partition.
 */
type Item = Record<string, unknown>;

export interface EnvVarScope {
  workspaceId: number;
  /** A tool's variables; undefined for the workspace's. */
  toolId?: number;
}

export interface EnvVarRecord {
  id: number;
  workspaceId: number;
  toolId: number | null;
  key: string;
  /** The value sealed for `envVarPurpose(...)`; null for an empty placeholder. */
  valueSealed: string | null;
  /** The value's last characters in clear (envVarSuffix), or null. */
  valueSuffix: string | null;
  createdAt: number;
  updatedAt: number;
}

const partition = ({ workspaceId, toolId }: EnvVarScope) =>
  toolId === undefined ? `W#${workspaceId}#ENV` : `W#${workspaceId}#ENV#TL#${toolId}`;
const varKey = (scope: EnvVarScope, id: number) => ({ PK: partition(scope), SK: `EV#${id}` });
const claimKey = (scope: EnvVarScope, key: string) => ({ PK: partition(scope), SK: `KEY#${key}` });
const counterKey = (scope: EnvVarScope) => ({ PK: partition(scope), SK: 'COUNT' });

function fromItem(item: Item): EnvVarRecord {
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    toolId: item.toolId === null || item.toolId === undefined ? null : Number(item.toolId),
    key: String(item.key),
    valueSealed: (item.valueSealed as string | null | undefined) ?? null,
    valueSuffix: (item.valueSuffix as string | null | undefined) ?? null,
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
  };
}

export type CreateOutcome = 'created' | 'key_taken' | 'full';

/** Writes a new variable, its key claim and a place in the scope's counter, all or nothing. */
export async function insertEnvVar(
  scope: EnvVarScope,
  record: EnvVarRecord,
  max: number,
): Promise<CreateOutcome> {
  const input: TransactWriteCommandInput = {
    TransactItems: [
      {
        Put: {
          TableName: table(),
          Item: { ...varKey(scope, record.id), ...record },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Put: {
          TableName: table(),
          Item: { ...claimKey(scope, record.key), id: record.id },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName: table(),
          Key: counterKey(scope),
          UpdateExpression: 'ADD #n :one',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1, ':max': max },
        },
      },
    ],
  };
  try {
    await dynamo.send(new TransactWriteCommand(input));
    return 'created';
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (reasons?.[1]?.Code === 'ConditionalCheckFailed') return 'key_taken';
    if (reasons?.[2]?.Code === 'ConditionalCheckFailed') return 'full';
    throw error;
  }
}

export async function getEnvVar(scope: EnvVarScope, id: number): Promise<EnvVarRecord | undefined> {
  const answer = await dynamo.send(new GetCommand({ TableName: table(), Key: varKey(scope, id) }));
  return answer.Item ? fromItem(answer.Item) : undefined;
}

/** Every variable of the scope (at most MAX_ENV_VARS_PER_SCOPE items, values sealed). */
export async function listEnvVars(scope: EnvVarScope): Promise<EnvVarRecord[]> {
  const records: EnvVarRecord[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ev)',
      ExpressionAttributeValues: { ':pk': partition(scope), ':ev': 'EV#' },
    },
  );
  for await (const page of pages) records.push(...(page.Items ?? []).map(fromItem));
  return records;
}

/** Replaces a variable's value; undefined when there is no such variable. */
export async function updateEnvVarValue(
  scope: EnvVarScope,
  id: number,
  value: { valueSealed: string; valueSuffix: string | null },
  now: number,
): Promise<EnvVarRecord | undefined> {
  const answer = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: varKey(scope, id),
        UpdateExpression: 'SET valueSealed = :sealed, valueSuffix = :suffix, updatedAt = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: {
          ':sealed': value.valueSealed,
          ':suffix': value.valueSuffix,
          ':now': now,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return answer?.Attributes ? fromItem(answer.Attributes) : undefined;
}

/** Deletes a variable, its key claim and its place in the counter; false when there was none. */
export async function deleteEnvVar(scope: EnvVarScope, record: EnvVarRecord): Promise<boolean> {
  const deleted = await unlessConditionFails(
    dynamo
      .send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: table(),
                Key: varKey(scope, record.id),
                ConditionExpression: 'attribute_exists(PK)',
              },
            },
            {
              Delete: {
                TableName: table(),
                Key: claimKey(scope, record.key),
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':id': record.id },
              },
            },
            {
              Update: {
                TableName: table(),
                Key: counterKey(scope),
                UpdateExpression: 'ADD #n :minus',
                ExpressionAttributeNames: { '#n': 'n' },
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          ],
        }),
      )
      .catch((error: unknown) => {
        // A transaction whose condition failed (deleted meanwhile) is cancelled, not a fault.
        if ((error as { name?: string }).name === 'TransactionCanceledException') return undefined;
        throw error;
      }),
  );
  return deleted !== undefined;
}

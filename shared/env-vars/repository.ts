import { DeleteCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type CountedPlaces, releasePlace, reservePlace } from '#shared/platform/counted-places.ts';
import { documentClient, dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';

/**
 * Table access for environment variables, without transactions. One partition per scope: `W#<ws>#ENV`
 * for the workspace's, `W#<ws>#ENV#TL#<toolId>` for a tool's. In it, one item per variable under its
 * key name (`K#<key>`: a conditional put takes a name once, even under concurrent creates), its value
 * sealed with the master key, and the scope's counter (`COUNT`, at most MAX_ENV_VARS_PER_SCOPE; taken
 * after the put, which is undone when the scope is full). The list, a run's environment and a read by
 * id are one Query of the partition (at most 100 small items).
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
const varKey = (scope: EnvVarScope, key: string) => ({ PK: partition(scope), SK: `K#${key}` });
const places = (scope: EnvVarScope, max: number): CountedPlaces => ({
  key: { PK: partition(scope), SK: 'COUNT' },
  attribute: 'n',
  max,
});

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

/** Writes a new variable under its key, then takes a place in the scope's counter (undone when full). */
export async function insertEnvVar(
  scope: EnvVarScope,
  record: EnvVarRecord,
  max: number,
): Promise<CreateOutcome> {
  const put = await unlessConditionFails(
    dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: { ...varKey(scope, record.key), ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
  if (!put) return 'key_taken';
  if (await reservePlace(places(scope, max))) return 'created';
  await deleteById(scope, record);
  return 'full';
}

/** Every variable of the scope, values sealed; filtered to one id when given. */
export async function listEnvVars(scope: EnvVarScope, id?: number): Promise<EnvVarRecord[]> {
  const records: EnvVarRecord[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :k)',
      ...(id === undefined
        ? { ExpressionAttributeValues: { ':pk': partition(scope), ':k': 'K#' } }
        : {
            FilterExpression: 'id = :id',
            ExpressionAttributeValues: { ':pk': partition(scope), ':k': 'K#', ':id': id },
          }),
    },
  );
  for await (const page of pages) records.push(...(page.Items ?? []).map(fromItem));
  return records;
}

export async function getEnvVar(scope: EnvVarScope, id: number): Promise<EnvVarRecord | undefined> {
  return (await listEnvVars(scope, id))[0];
}

/** Replaces a variable's value; undefined when it is gone (or its key now names another variable). */
export async function updateEnvVarValue(
  scope: EnvVarScope,
  record: EnvVarRecord,
  value: { valueSealed: string; valueSuffix: string | null },
  now: number,
): Promise<EnvVarRecord | undefined> {
  const answer = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: varKey(scope, record.key),
        UpdateExpression: 'SET valueSealed = :sealed, valueSuffix = :suffix, updatedAt = :now',
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: {
          ':sealed': value.valueSealed,
          ':suffix': value.valueSuffix,
          ':now': now,
          ':id': record.id,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return answer?.Attributes ? fromItem(answer.Attributes) : undefined;
}

function deleteById(scope: EnvVarScope, record: EnvVarRecord) {
  return unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: varKey(scope, record.key),
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': record.id },
      }),
    ),
  );
}

/** Deletes a variable and gives its place back; false when it was gone. */
export async function deleteEnvVar(scope: EnvVarScope, record: EnvVarRecord, max: number): Promise<boolean> {
  if (!(await deleteById(scope, record))) return false;
  await releasePlace(places(scope, max));
  return true;
}

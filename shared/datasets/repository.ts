import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailed, table } from '#shared/platform/dynamo.ts';
import {
  datasetIndexKeys,
  datasetKey,
  groupDatasetsPartition,
  groupKey,
  workspaceDatasetsPartition,
} from './keys.ts';
import { type DatasetGroupRecord, type DatasetJob, type DatasetRecord, isExpired } from './records.ts';

/**
 * Table access for dataset groups and datasets: items <-> records, reads, and conditional writes. The
 * draft protocol (drafts.ts) and the job lifecycle (job-lifecycle.ts) are built from these.
 */
type Item = Record<string, unknown>;
type Key = { PK: string; SK: string };

export function groupFromItem(item: Item): DatasetGroupRecord {
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    name: String(item.name),
    folderId: item.folderId == null ? null : Number(item.folderId),
    userId: Number(item.userId),
    createdAt: Number(item.createdAt),
    lastVersion: Number(item.lastVersion ?? 0),
  };
}

export async function getGroup(
  workspaceId: number,
  groupId: number,
): Promise<DatasetGroupRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: groupKey(workspaceId, groupId) }),
  );
  return Item ? groupFromItem(Item) : undefined;
}

/** The job's attributes are flat on the item, so each can be tested in a condition. */
const JOB_ATTRIBUTES: Record<keyof DatasetJob, string> = {
  id: 'jobId',
  type: 'jobType',
  status: 'jobStatus',
  startedAt: 'jobStartedAt',
  ownsDraft: 'jobOwnsDraft',
  fileKey: 'jobFileKey',
  fileKind: 'jobFileKind',
  fileEtag: 'jobFileEtag',
  error: 'jobError',
  rowsAdded: 'jobRowsAdded',
};

export function jobAttributes(job: DatasetJob): Item {
  const item: Item = {};
  for (const [field, attribute] of Object.entries(JOB_ATTRIBUTES)) {
    const value = job[field as keyof DatasetJob];
    if (value !== undefined) item[attribute] = value;
  }
  return item;
}

/** Removing a job from a draft removes these, and the query parameters it was given. */
export const JOB_ATTRIBUTE_NAMES = Object.values(JOB_ATTRIBUTES);
export const FILTER_PARAMS_ATTRIBUTE_NAMES = ['filterParams', 'filterParamsKey', 'filterParamsPreview'];

export function datasetToItem(record: DatasetRecord): Item {
  const { job, ...fields } = record;
  return {
    ...datasetKey(record.workspaceId, record.id),
    ...datasetIndexKeys(record.workspaceId, record.groupId, record.id),
    ...fields,
    ...(job ? jobAttributes(job) : {}),
  };
}

export function datasetFromItem(item: Item): DatasetRecord {
  const optional = <T>(value: unknown) => (value === undefined || value === null ? undefined : (value as T));
  const record: DatasetRecord = {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    groupId: Number(item.groupId),
    groupName: String(item.groupName),
    versionNumber: Number(item.versionNumber),
    userId: Number(item.userId),
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
    columns: (item.columns as string[] | undefined) ?? [],
    rowCount: Number(item.rowCount ?? 0),
    manifestKey: optional(item.manifestKey),
    origin: item.origin as DatasetRecord['origin'],
    sourceDatasetId: optional(item.sourceDatasetId),
    filterParams: optional(item.filterParams),
    filterParamsKey: optional(item.filterParamsKey),
    filterParamsPreview: optional(item.filterParamsPreview),
    expiresAt: optional(item.expiresAt),
  };
  if (typeof item.jobId === 'string') {
    const job: Partial<DatasetJob> = {};
    for (const [field, attribute] of Object.entries(JOB_ATTRIBUTES)) {
      if (item[attribute] !== undefined) (job as Item)[field] = item[attribute];
    }
    record.job = job as DatasetJob;
  }
  return record;
}

/**
 * The dataset, or undefined when it does not exist in this workspace or has expired (`includeExpired`:
 * a job's own view of a draft it is removing).
 */
export async function getDataset(
  workspaceId: number,
  datasetId: number,
  options: { consistent?: boolean; includeExpired?: boolean } = {},
): Promise<DatasetRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: table(),
      Key: datasetKey(workspaceId, datasetId),
      ConsistentRead: options.consistent,
    }),
  );
  if (!Item) return undefined;
  const record = datasetFromItem(Item);
  return !options.includeExpired && isExpired(record) ? undefined : record;
}

/** Creates the dataset item; it must not exist yet. */
export async function putDataset(record: DatasetRecord): Promise<void> {
  if (!(await putNewItem(datasetToItem(record) as Item & Key)))
    throw new Error(`Dataset ${record.id} exists`);
}

/** Every live dataset of one group, or of the workspace, oldest first. */
export async function queryDatasets(
  workspaceId: number,
  scope: { groupId: number } | 'workspace',
): Promise<DatasetRecord[]> {
  const [index, partition] =
    scope === 'workspace'
      ? ['GSI2', workspaceDatasetsPartition(workspaceId)]
      : ['GSI1', groupDatasetsPartition(workspaceId, scope.groupId)];
  const records: DatasetRecord[] = [];
  let startKey: Item | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        IndexName: index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': `${index}PK` },
        ExpressionAttributeValues: { ':pk': partition },
        ExclusiveStartKey: startKey,
      }),
    );
    const now = Date.now();
    for (const item of page.Items ?? []) {
      const record = datasetFromItem(item);
      if (!isExpired(record, now)) records.push(record);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return records;
}

/**
 * The group's next version number, for this dataset only once. The counter item records which dataset
 * took the last number; a redelivered job whose dataset already took it gets that same number back.
 * Only the group's one draft can become a version at a time, so no other dataset can come in between.
 * Undefined when the group no longer exists.
 */
export async function reserveVersionNumber(
  workspaceId: number,
  groupId: number,
  datasetId: number,
): Promise<number | undefined> {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: groupKey(workspaceId, groupId),
        UpdateExpression:
          'SET lastVersion = if_not_exists(lastVersion, :zero) + :one, lastVersionDataset = :ds',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(lastVersionDataset) OR lastVersionDataset <> :ds)',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':ds': datasetId },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.lastVersion);
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: table(), Key: groupKey(workspaceId, groupId), ConsistentRead: true }),
    );
    return Item?.lastVersionDataset === datasetId ? Number(Item.lastVersion) : undefined;
  }
}

export interface ItemChange {
  set?: Item;
  remove?: readonly string[];
  /** A condition; `#name` refers to attribute `name`, `:value` to `values`. */
  condition?: string;
  values?: Item;
}

/** True when the write happened, false when its condition failed (a domain outcome the caller decides). */
async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Placeholders for the `#name`s of a condition. */
function conditionNames(condition: string | undefined, names: Record<string, string> = {}) {
  for (const [, attribute] of (condition ?? '').matchAll(/#(\w+)/g)) names[`#${attribute}`] = attribute!;
  return names;
}

/**
 * One UpdateItem; false when its condition fails. Every attribute goes through a name placeholder, so
 * reserved words (`name`, `columns`) need no care.
 */
export function updateItem(key: Key, change: ItemChange): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Item = { ...change.values };
  const sets = Object.entries(change.set ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([attribute, value]) => {
      names[`#${attribute}`] = attribute;
      values[`:set_${attribute}`] = value;
      return `#${attribute} = :set_${attribute}`;
    });
  const removes = (change.remove ?? []).map((attribute) => {
    names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  });
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return conditional(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: expression,
        ConditionExpression: change.condition,
        ExpressionAttributeNames: conditionNames(change.condition, names),
        ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
      }),
    ),
  );
}

/** One DeleteItem; false when its condition fails. */
export function deleteItem(key: Key, condition?: string, values?: Item): Promise<boolean> {
  const names = conditionNames(condition);
  return conditional(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: key,
        ConditionExpression: condition,
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/** One PutItem of a new item; false when an item with that key exists. */
export function putNewItem(item: Item & Key): Promise<boolean> {
  return conditional(
    dynamo.send(
      new PutCommand({ TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
    ),
  );
}

export async function getItem(key: Key, consistent = true): Promise<Item | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: key, ConsistentRead: consistent }),
  );
  return Item;
}

import { GetCommand, QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { deleteItem, getItem, type ItemChange, putNewItem, updateItem } from '#shared/platform/items.ts';
import {
  datasetIndexKeys,
  datasetKey,
  groupDatasetsPartition,
  groupKey,
  jobFailureKey,
  workspaceDatasetsPartition,
} from './keys.ts';
import {
  type DatasetGroupRecord,
  type DatasetJob,
  type DatasetRecord,
  isExpired,
  JOB_FAILURE_RETENTION_SECONDS,
  type JobFailureRecord,
  nowSeconds,
} from './records.ts';

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

/** Writes (or rewrites, on redelivery) the dataset's last job failure; it expires after a week. */
export async function putJobFailure(failure: JobFailureRecord): Promise<void> {
  const { workspaceId, datasetId, ...fields } = failure;
  await updateItem(jobFailureKey(workspaceId, datasetId), {
    set: {
      ...fields,
      workspaceId,
      datasetId,
      expiresAt: nowSeconds(failure.failedAt) + JOB_FAILURE_RETENTION_SECONDS,
    },
  });
}

/** The dataset's last job failure, while it is kept. */
export async function getJobFailure(
  workspaceId: number,
  datasetId: number,
  consistent = false,
): Promise<JobFailureRecord | undefined> {
  const item = await getItem(jobFailureKey(workspaceId, datasetId), consistent);
  if (!item || isExpired(item as { expiresAt?: number })) return undefined;
  return {
    datasetId: Number(item.datasetId),
    workspaceId: Number(item.workspaceId),
    groupId: Number(item.groupId),
    groupName: String(item.groupName),
    userId: Number(item.userId),
    jobId: String(item.jobId),
    jobType: item.jobType as JobFailureRecord['jobType'],
    error: String(item.error),
    createdAt: Number(item.createdAt),
    failedAt: Number(item.failedAt),
  };
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
  const reserved = await unlessConditionFails(
    dynamo.send(
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
    ),
  );
  if (reserved) return Number(reserved.Attributes?.lastVersion);
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: groupKey(workspaceId, groupId), ConsistentRead: true }),
  );
  return Item?.lastVersionDataset === datasetId ? Number(Item.lastVersion) : undefined;
}

// The generic single-item writes datasets are built from (shared with other features).
export { deleteItem, getItem, type ItemChange, putNewItem, updateItem };

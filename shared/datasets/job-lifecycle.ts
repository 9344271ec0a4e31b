import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dynamo, isConditionFailed, table } from '#shared/platform/dynamo.ts';
import { emitEvent } from '#shared/platform/events.ts';
import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { discardDraft, dropDraftMarker, releaseDraft } from './drafts.ts';
import { DatasetFileError } from './file-parser.ts';
import {
  DATASET_QUEUES,
  type DatasetJobMessage,
  type DatasetJobType,
  datasetJobMessageSchema,
} from './jobs.ts';
import { datasetKey, groupKey } from './keys.ts';
import { type DatasetJob, type DatasetRecord, DRAFT_VERSION, isExpired, nowSeconds } from './records.ts';
import { getDataset, updateItem } from './repository.ts';

/**
 * What every dataset job does around its own work, so that it is idempotent under redelivery and ends
 * cleanly. The job's state lives on the dataset item (`jobStatus`), and every step is a conditional
 * write on it, so a message delivered twice (or by two workers at once) yields one outcome:
 *
 *   pending --work, then install rows (+ version number)--> finalized --event, marker--> done
 *   pending --bad input, or last receive--> failing --event, remove or release the draft--> (gone)
 *
 * A delivery that finds the job finalized or failing resumes from there; one that finds another job
 * (or no dataset) has nothing to do. Version numbers: see reserveVersionNumber.
 */
export interface JobOutcome {
  /** Where the rows now are (already written), and what they hold. */
  manifestKey?: string;
  columns: string[];
  rowCount: number;
  rowsAdded: number;
}

export interface DatasetEvent {
  type: string;
  details: Record<string, unknown>;
}

export interface JobDefinition {
  type: DatasetJobType;
  /** True when success turns the draft into a numbered version. */
  makesVersion: boolean;
  /** The work. A DatasetFileError or PermanentJobError is the input's fault: it is not retried. */
  run(dataset: DatasetRecord, job: DatasetJob): Promise<JobOutcome>;
  successEvent?(dataset: DatasetRecord, job: DatasetJob): DatasetEvent;
  failureEvent?(dataset: DatasetRecord, errorMessage: string): DatasetEvent;
  /** After the job has ended either way (e.g. delete the upload); failures are only logged. */
  afterEnd?(dataset: DatasetRecord, job: DatasetJob): Promise<void>;
}

/** A job failure that another attempt cannot fix; its message is for the user. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** A job reads its dataset consistently, and still sees a draft it has just expired. */
const JOB_VIEW = { consistent: true, includeExpired: true };

const isPermanent = (error: unknown) =>
  error instanceof DatasetFileError || error instanceof PermanentJobError;

/** The SQS handler of a dataset job queue. */
export function datasetJobHandler(definition: JobDefinition): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { maxReceiveCount } = DATASET_QUEUES[definition.type];
  return sqsBatchHandler(
    async ({ record, receiveCount }) => {
      const message = datasetJobMessageSchema.parse(JSON.parse(record.body));
      logger.appendKeys({
        workspaceId: message.workspaceId,
        datasetId: message.datasetId,
        jobId: message.jobId,
      });
      await runDatasetJob(definition, message, receiveCount >= maxReceiveCount);
    },
    { maxReceiveCount },
  );
}

export async function runDatasetJob(
  definition: JobDefinition,
  message: DatasetJobMessage,
  lastAttempt: boolean,
): Promise<void> {
  const dataset = await getDataset(message.workspaceId, message.datasetId, JOB_VIEW);
  const job = dataset?.job;
  if (!dataset || !job || job.id !== message.jobId) {
    logger.info('Job has nothing left to do (its draft is gone or another job holds it)');
    return;
  }
  switch (job.status) {
    case 'pending':
      // Past its lease the job was given up on; the draft has expired and may have a successor.
      if (isExpired(dataset)) return;
      break;
    case 'done':
      return;
    case 'finalized':
      return announce(definition, dataset, job);
    case 'failing':
      return endFailed(definition, dataset, job);
  }

  let outcome: JobOutcome;
  try {
    outcome = await definition.run(dataset, job);
  } catch (error) {
    const permanent = isPermanent(error);
    if (!permanent && !lastAttempt) throw error; // delivered again after the visibility timeout
    const reason = permanent
      ? (error as Error).message
      : 'The job failed repeatedly because of an internal error; please try again';
    logger.warn('Job failed for good', { reason, error: error as Error });
    const failing = await markFailing(dataset, job, reason);
    if (failing) await endFailed(definition, dataset, failing);
    if (!permanent) throw error; // on to the dead-letter queue
    return;
  }

  const finalized = await finalize(definition, dataset, job, outcome);
  if (finalized) await announce(definition, finalized, finalized.job!);
}

/** Installs the rows and, for a version, its number: one conditional write from `pending`. */
async function finalize(
  definition: JobDefinition,
  dataset: DatasetRecord,
  job: DatasetJob,
  outcome: JobOutcome,
): Promise<DatasetRecord | undefined> {
  const versionNumber = definition.makesVersion
    ? await reserveVersionNumber(dataset.workspaceId, dataset.groupId, dataset.id)
    : DRAFT_VERSION;
  const updatedAt = Date.now();
  const installed = await updateItem(datasetKey(dataset.workspaceId, dataset.id), {
    set: {
      versionNumber,
      manifestKey: outcome.manifestKey,
      columns: outcome.columns,
      rowCount: outcome.rowCount,
      updatedAt,
      jobStatus: 'finalized',
      jobRowsAdded: outcome.rowsAdded,
    },
    remove: ['expiresAt'],
    condition: '#jobId = :job AND #jobStatus = :pending',
    values: { ':job': job.id, ':pending': 'pending' },
  });
  if (installed) {
    const { expiresAt: _, ...rest } = dataset;
    return {
      ...rest,
      ...outcome,
      versionNumber,
      updatedAt,
      job: { ...job, status: 'finalized', rowsAdded: outcome.rowsAdded },
    };
  }
  // Another delivery got there first: carry on from what it left.
  const now = await getDataset(dataset.workspaceId, dataset.id, JOB_VIEW);
  if (now?.job?.id === job.id && now.job.status === 'finalized') return now;
  return undefined;
}

/**
 * The group's next version number, for this dataset only once. The counter item records which dataset
 * took the last number; a redelivered job whose dataset already took it gets that same number back.
 * Only the group's one draft can become a version at a time, so no other dataset can come in between.
 */
export async function reserveVersionNumber(
  workspaceId: number,
  groupId: number,
  datasetId: number,
): Promise<number> {
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
    if (Item?.lastVersionDataset === datasetId) return Number(Item.lastVersion);
    throw new PermanentJobError('The dataset group no longer exists');
  }
}

/** After the rows are installed: free the group's draft slot (a version), tell the world, and finish. */
async function announce(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  if (dataset.versionNumber !== DRAFT_VERSION) {
    await dropDraftMarker(dataset.workspaceId, dataset.groupId, dataset.id);
  }
  const event = definition.successEvent?.(dataset, job);
  if (event) await emitEvent(dataset.workspaceId, event.type, event.details);
  await afterEnd(definition, dataset, job);
  await updateItem(datasetKey(dataset.workspaceId, dataset.id), {
    set: { jobStatus: 'done' },
    condition: '#jobId = :job AND #jobStatus = :finalized',
    values: { ':job': job.id, ':finalized': 'finalized' },
  });
  logger.info('Job done', { versionNumber: dataset.versionNumber, rowCount: dataset.rowCount });
}

/**
 * Records the failure. A draft the job made expires at once, so readers no longer see it while the
 * event goes out and the draft is removed.
 */
async function markFailing(
  dataset: DatasetRecord,
  job: DatasetJob,
  reason: string,
): Promise<DatasetJob | undefined> {
  const now = Date.now();
  const marked = await updateItem(datasetKey(dataset.workspaceId, dataset.id), {
    set: {
      jobStatus: 'failing',
      jobError: reason,
      updatedAt: now,
      expiresAt: job.ownsDraft ? nowSeconds(now) : undefined,
    },
    condition: '#jobId = :job AND #jobStatus = :pending',
    values: { ':job': job.id, ':pending': 'pending' },
  });
  if (marked) return { ...job, status: 'failing', error: reason };
  const current = await getDataset(dataset.workspaceId, dataset.id, JOB_VIEW);
  return current?.job?.id === job.id && current.job.status === 'failing' ? current.job : undefined;
}

/** A failed job's draft: removed when the job made it, else handed back untouched; then the event. */
async function endFailed(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  const event = definition.failureEvent?.(dataset, job.error ?? 'The job failed');
  if (event) await emitEvent(dataset.workspaceId, event.type, event.details);
  await afterEnd(definition, dataset, job);
  if (job.ownsDraft) await discardDraft(dataset, job.id);
  else await releaseDraft(dataset, job.id);
}

async function afterEnd(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  try {
    await definition.afterEnd?.(dataset, job);
  } catch (error) {
    logger.warn('Clean-up after the job failed', { error: error as Error });
  }
}

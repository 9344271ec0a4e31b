import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { CatalogueEvent } from '#shared/events/catalogue.ts';
import { emitEvents } from '#shared/events/emit.ts';
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
import { datasetKey } from './keys.ts';
import {
  type DatasetJob,
  type DatasetRecord,
  DRAFT_VERSION,
  isExpired,
  jobFailureOf,
  nowSeconds,
} from './records.ts';
import { getDataset, putJobFailure, reserveVersionNumber, updateItem } from './repository.ts';

/**
 * What every dataset job does around its own work, so that it is idempotent under redelivery and ends
 * cleanly. The job's state lives on the dataset item (`jobStatus`), and every step is a conditional
 * write on it, so a message delivered twice (or by two workers at once) yields one outcome:
 *
 *   pending --work, then install rows (+ version number)--> finalized --event, marker--> done
 *   pending --bad input, or any step failing on the last receive--> failing --event, remove or
 *     release the draft--> (gone)
 *
 * A delivery that finds the job finalized or failing resumes from there; one that finds another job
 * (or no dataset) has nothing to do. Only `pending` can move to either side, so a job ends as a version
 * or as a failure, never both. Version numbers: see reserveVersionNumber (repository.ts).
 */
export interface JobOutcome {
  /** Where the rows now are (already written), and what they hold. */
  manifestKey?: string;
  columns: string[];
  rowCount: number;
  rowsAdded: number;
}

/** A job's event; keyed by the job, so a job whose event was written before a crash reports it once. */
export type DatasetEvent = Extract<
  CatalogueEvent,
  {
    type:
      | 'dataset_version_created_by_file'
      | 'dataset_version_created_by_file_failed'
      | 'dataset_version_created_from_filter_params'
      | 'dataset_version_created_from_filter_params_failed';
  }
>;

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

/**
 * Every step is under one failure handling: whatever throws (the work, installing the version, the
 * event, the clean-up), a permanent error fails the job at once, any other is retried by SQS, and on
 * the last receive the job fails for good and the message still goes to the dead-letter queue. Failing
 * is a conditional write from `pending` only, so a job whose version was installed (even by a write
 * whose answer was lost) is finished as a success instead: never a version and a failure event both.
 */
export async function runDatasetJob(
  definition: JobDefinition,
  message: DatasetJobMessage,
  lastAttempt: boolean,
): Promise<void> {
  try {
    await advance(definition, message);
  } catch (error) {
    const permanent = isPermanent(error);
    if (!permanent && !lastAttempt) throw error; // delivered again after the visibility timeout
    const reason = permanent
      ? (error as Error).message
      : 'The job failed repeatedly because of an internal error; please try again';
    logger.warn('Job failed for good', { reason, error: error as Error });
    const outcome = await giveUp(definition, message, reason);
    // On to the dead-letter queue, unless the job turned out to have made its version after all.
    if (!permanent && outcome !== 'succeeded') throw error;
  }
}

/** The job's dataset, when the job still holds it. */
async function readJob(message: DatasetJobMessage): Promise<DatasetRecord | undefined> {
  const dataset = await getDataset(message.workspaceId, message.datasetId, JOB_VIEW);
  if (dataset?.job?.id === message.jobId) return dataset;
  logger.info('Job has nothing left to do (its draft is gone or another job holds it)');
  return undefined;
}

/** Takes the job from the state it is in to its end. */
async function advance(definition: JobDefinition, message: DatasetJobMessage): Promise<void> {
  const dataset = await readJob(message);
  const job = dataset?.job;
  if (!dataset || !job) return;
  switch (job.status) {
    case 'pending': {
      // Past its lease the job was given up on; the draft has expired and may have a successor.
      if (isExpired(dataset)) return;
      const outcome = await definition.run(dataset, job);
      const finalized = await finalize(definition, dataset, job, outcome);
      if (finalized) await announce(definition, finalized, finalized.job!);
      return;
    }
    case 'finalized':
      return announce(definition, dataset, job);
    case 'failing':
      return endFailed(definition, dataset, job);
    case 'done':
      return;
  }
}

/**
 * The job failed for good, at whatever step. From `pending` it is marked failing (the draft removed or
 * handed back, the failure event sent); one already finalized keeps its version and is announced; one
 * already failing is cleaned up. Errors here go to the caller: the message is then dead-lettered.
 */
async function giveUp(
  definition: JobDefinition,
  message: DatasetJobMessage,
  reason: string,
): Promise<'failed' | 'succeeded' | 'gone'> {
  let dataset = await readJob(message);
  if (dataset?.job?.status === 'pending') {
    if (isExpired(dataset)) return 'gone';
    dataset = await markFailing(dataset, dataset.job, reason);
  }
  const job = dataset?.job;
  if (!dataset || !job) return 'gone';
  switch (job.status) {
    case 'failing':
      await endFailed(definition, dataset, job);
      return 'failed';
    case 'finalized':
      await announce(definition, dataset, job);
      return 'succeeded';
    case 'done':
      return 'succeeded';
    case 'pending':
      return 'gone'; // not reached: markFailing answers the state that replaced `pending`
  }
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
  if (versionNumber === undefined) throw new PermanentJobError('The dataset group no longer exists');
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

/** After the rows are installed: free the group's draft slot (a version), tell the world, and finish. */
async function announce(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  if (dataset.versionNumber !== DRAFT_VERSION) {
    await dropDraftMarker(dataset.workspaceId, dataset.groupId, dataset.id);
  }
  const event = definition.successEvent?.(dataset, job);
  if (event)
    await emitEvents(dataset.workspaceId, [{ ...event, key: `dataset:${dataset.id}:job:${job.id}` }]);
  await afterEnd(definition, dataset, job);
  await updateItem(datasetKey(dataset.workspaceId, dataset.id), {
    set: { jobStatus: 'done' },
    condition: '#jobId = :job AND #jobStatus = :finalized',
    values: { ':job': job.id, ':finalized': 'finalized' },
  });
  logger.info('Job done', { versionNumber: dataset.versionNumber, rowCount: dataset.rowCount });
}

/**
 * Records the failure, only while the job is pending; answers the dataset as the job now stands (failing,
 * or finalized by a write whose answer was lost), or undefined when the job no longer holds it. A draft
 * the job made expires at once, so readers no longer see it while the event goes out and it is removed.
 */
async function markFailing(
  dataset: DatasetRecord,
  job: DatasetJob,
  reason: string,
): Promise<DatasetRecord | undefined> {
  const now = Date.now();
  const expiresAt = job.ownsDraft ? nowSeconds(now) : undefined;
  const marked = await updateItem(datasetKey(dataset.workspaceId, dataset.id), {
    set: { jobStatus: 'failing', jobError: reason, updatedAt: now, expiresAt },
    condition: '#jobId = :job AND #jobStatus = :pending',
    values: { ':job': job.id, ':pending': 'pending' },
  });
  if (marked) {
    const failing: DatasetJob = { ...job, status: 'failing', error: reason };
    return { ...dataset, updatedAt: now, expiresAt: expiresAt ?? dataset.expiresAt, job: failing };
  }
  const current = await getDataset(dataset.workspaceId, dataset.id, JOB_VIEW);
  return current?.job?.id === job.id ? current : undefined;
}

/** A failed job's draft: removed when the job made it, else handed back untouched; then the event. */
async function endFailed(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  const event = definition.failureEvent?.(dataset, job.error ?? 'The job failed');
  if (event)
    await emitEvents(dataset.workspaceId, [{ ...event, key: `dataset:${dataset.id}:job:${job.id}` }]);
  await afterEnd(definition, dataset, job);
  // The reason is kept beside the dataset: before a removal (the draft's item goes), after a release (so
  // the reason is newer than the draft's release, and any later change to the draft is newer still).
  if (job.ownsDraft) {
    await recordFailure(dataset, job);
    await discardDraft(dataset, job.id);
  } else {
    await releaseDraft(dataset, job.id);
    await recordFailure(dataset, job);
  }
}

function recordFailure(dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  return putJobFailure(jobFailureOf(dataset, job, Date.now()));
}

async function afterEnd(definition: JobDefinition, dataset: DatasetRecord, job: DatasetJob): Promise<void> {
  try {
    await definition.afterEnd?.(dataset, job);
  } catch (error) {
    logger.warn('Clean-up after the job failed', { error: error as Error });
  }
}

import { VISIBILITY_TIMEOUT_FACTOR } from '#shared/platform/config.ts';
import { sendJob } from '#shared/platform/jobs.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * The dataset job queues: their names, the settings a worker must know about its own queue (how many
 * receives before the dead-letter queue, its timeout), and the messages. The route table
 * (infra/routes/datasets.ts) builds the queues from these same values.
 *
 * Messages carry ids only: what to do is on the dataset item (its job id, type, file key, filter params).
 */
export type DatasetJobType = 'file' | 'filter' | 'copy';

export interface DatasetQueue {
  name: string;
  maxReceiveCount: number;
  timeoutSeconds: number;
}

export const DATASET_QUEUES: Record<DatasetJobType, DatasetQueue> = {
  file: { name: 'dataset-file-jobs', maxReceiveCount: 3, timeoutSeconds: 300 },
  filter: { name: 'dataset-filter-jobs', maxReceiveCount: 3, timeoutSeconds: 600 },
  copy: { name: 'dataset-copy-jobs', maxReceiveCount: 3, timeoutSeconds: 60 },
};

/**
 * How long a job may hold its draft: every receive the queue allows, each waiting out a visibility
 * timeout, plus a margin. A job still unfinished by then has crashed for good (its message is in the
 * dead-letter queue): a draft it created expires (DynamoDB TTL, and readers treat it as gone), a draft
 * it reused becomes free again.
 */
export function jobLeaseSeconds(type: DatasetJobType): number {
  const queue = DATASET_QUEUES[type];
  return queue.maxReceiveCount * VISIBILITY_TIMEOUT_FACTOR * queue.timeoutSeconds + 15 * 60;
}

export const datasetJobMessageSchema = z.object({
  v: z.literal(1),
  type: z.enum(['dataset.file', 'dataset.filter', 'dataset.copy']),
  workspaceId: z.int().check(z.positive()),
  datasetId: z.int().check(z.positive()),
  jobId: z.string().check(z.minLength(1)),
});
export type DatasetJobMessage = z.infer<typeof datasetJobMessageSchema>;

export function sendDatasetJob(type: DatasetJobType, workspaceId: number, datasetId: number, jobId: string) {
  const message: DatasetJobMessage = { v: 1, type: `dataset.${type}`, workspaceId, datasetId, jobId };
  return sendJob(DATASET_QUEUES[type].name, message);
}

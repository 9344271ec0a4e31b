import { DATASET_QUEUES } from '#shared/datasets/jobs.ts';
import type { JobQueueDef, RouteDef } from '../route-types.ts';

/** Dataset groups, versions and drafts, and the jobs that build versions. */
const FILE_JOBS = DATASET_QUEUES.file;
const FILTER_JOBS = DATASET_QUEUES.filter;
const COPY_JOBS = DATASET_QUEUES.copy;

export const DATASET_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/public/v2/dataset-groups',
    handler: 'functions/http/dataset-group-create.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-groups/{dataset_group_id}/external-ids',
    handler: 'functions/http/dataset-group-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/dataset-groups/{dataset_group_id}/external-ids',
    handler: 'functions/http/dataset-group-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/api/public/v2/dataset-groups/{dataset_group_id}/external-ids/{source}/{external_id}',
    handler: 'functions/http/dataset-group-external-id-delete.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/datasets',
    handler: 'functions/http/dataset-list.ts',
    table: 'read',
    bucket: 'read', // filter params stored in S3 before lists had their preview on the item
  },
  {
    method: 'GET',
    path: '/api/public/v2/datasets/{dataset_id}',
    handler: 'functions/http/dataset-get.ts',
    table: 'read',
    bucket: 'read', // large stored filter params
  },
  {
    method: 'GET',
    path: '/api/public/v2/datasets/{dataset_id}/rows',
    handler: 'functions/http/dataset-rows.ts',
    table: 'read',
    bucket: 'read',
    // A `q` search reads every chunk of the dataset.
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/create-draft',
    handler: 'functions/http/dataset-create-draft.ts',
    table: 'write',
    bucket: 'write', // removes a draft whose job could not be sent
    queues: [COPY_JOBS.name],
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/save-draft',
    handler: 'functions/http/dataset-save-draft.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/add-request-log',
    handler: 'functions/http/dataset-add-request-log.ts',
    table: 'write',
    // The row is written to the bucket; a log over the item limit is read from it.
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/add-trace',
    handler: 'functions/http/dataset-add-trace.ts',
    table: 'write',
    // The row is written to the bucket; large span details are read from it.
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/upload-url',
    handler: 'functions/http/dataset-upload-url.ts',
    table: 'read',
    // A presigned URL acts with the signer's rights: this function's.
    bucket: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/from-file',
    handler: 'functions/http/dataset-from-file.ts',
    table: 'write',
    bucket: 'write',
    queues: [FILE_JOBS.name],
    // Decodes up to ~4.5 MB of base64.
    memoryMb: 512,
  },
  {
    method: 'POST',
    path: '/api/public/v2/dataset-versions/from-filter-params',
    handler: 'functions/http/dataset-from-filter-params.ts',
    table: 'write',
    bucket: 'write',
    queues: [FILTER_JOBS.name],
  },
];

export const DATASET_JOB_QUEUES: Record<string, JobQueueDef> = {
  [FILE_JOBS.name]: {
    worker: 'functions/workers/dataset-file-job.ts',
    // One file per invocation: a 100 MB file has the whole function to itself.
    batchSize: 1,
    maxReceiveCount: FILE_JOBS.maxReceiveCount,
    timeoutSeconds: FILE_JOBS.timeoutSeconds,
    memoryMb: 512,
    table: 'write',
    bucket: 'write',
    events: true,
  },
  [FILTER_JOBS.name]: {
    worker: 'functions/workers/dataset-filter-job.ts',
    batchSize: 1,
    maxReceiveCount: FILTER_JOBS.maxReceiveCount,
    timeoutSeconds: FILTER_JOBS.timeoutSeconds,
    // Reading 50,000 logs is CPU-bound (JSON parsing, filtering): memory buys CPU.
    memoryMb: 1024,
    table: 'write',
    bucket: 'write',
    events: true,
  },
  [COPY_JOBS.name]: {
    worker: 'functions/workers/dataset-copy-job.ts',
    batchSize: 10,
    maxReceiveCount: COPY_JOBS.maxReceiveCount,
    timeoutSeconds: COPY_JOBS.timeoutSeconds,
    memoryMb: 256,
    table: 'write',
    bucket: 'write',
  },
};

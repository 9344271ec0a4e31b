import type { DatasetFileKind } from './file-parser.ts';
import type { DatasetJobType } from './jobs.ts';

/** Dataset groups and datasets (versions and drafts) as the domain sees them. Times are epoch ms. */
export interface DatasetGroupRecord {
  id: number;
  workspaceId: number;
  name: string;
  folderId: number | null;
  userId: number;
  createdAt: number;
  /** The last version number handed out in the group (0: none yet). */
  lastVersion: number;
}

/** A draft's `versionNumber`. */
export const DRAFT_VERSION = -1;

/**
 * pending: the job is building rows; finalized: its result is installed (and the version numbered),
 * the event not yet sent; failing: it failed for good, the failure not yet handled; done: all is over.
 */
export type JobStatus = 'pending' | 'finalized' | 'failing' | 'done';

export interface DatasetJob {
  id: string;
  type: DatasetJobType;
  status: JobStatus;
  startedAt: number;
  /** The job created the draft (or took over an empty one): a failure removes it, else it is released. */
  ownsDraft: boolean;
  /** from-file: the uploaded object, its kind and the ETag seen when the request was accepted. */
  fileKey?: string;
  fileKind?: DatasetFileKind;
  fileEtag?: string;
  error?: string;
  rowsAdded?: number;
}

/**
 * Why a dataset's last job failed, kept a week beside the dataset (the draft it built may be gone), so
 * whoever started the job can read the reason on GET /datasets/{id}.
 */
export interface JobFailureRecord {
  datasetId: number;
  workspaceId: number;
  groupId: number;
  groupName: string;
  userId: number;
  jobId: string;
  jobType: DatasetJobType;
  error: string;
  createdAt: number;
  failedAt: number;
}

/** The failure record of a dataset's failed job, as GET /datasets/{id} reads it. */
export function jobFailureOf(dataset: DatasetRecord, job: DatasetJob, failedAt: number): JobFailureRecord {
  return {
    datasetId: dataset.id,
    workspaceId: dataset.workspaceId,
    groupId: dataset.groupId,
    groupName: dataset.groupName,
    userId: dataset.userId,
    jobId: job.id,
    jobType: job.type,
    error: job.error ?? 'The job failed',
    createdAt: dataset.createdAt,
    failedAt,
  };
}

/** How long a failure's reason stays readable. */
export const JOB_FAILURE_RETENTION_SECONDS = 7 * 24 * 3600;

export type DatasetOrigin = 'empty' | 'copy' | 'file' | 'filter';

export interface DatasetRecord {
  id: number;
  workspaceId: number;
  groupId: number;
  /** Copied from the group (names never change), so lists filter by name without reading groups. */
  groupName: string;
  versionNumber: number;
  userId: number;
  createdAt: number;
  updatedAt: number;
  columns: string[];
  rowCount: number;
  /** The S3 manifest of the rows; absent while the dataset has none. */
  manifestKey?: string;
  origin: DatasetOrigin;
  sourceDatasetId?: number;
  /** from-filter-params: the parameters as JSON, inline when small, else in S3 with a preview here. */
  filterParams?: string;
  filterParamsKey?: string;
  filterParamsPreview?: string;
  job?: DatasetJob;
  /** Epoch seconds after which a job's draft is gone (DynamoDB TTL; readers check it too). */
  expiresAt?: number;
}

export const isDraft = (dataset: DatasetRecord) => dataset.versionNumber === DRAFT_VERSION;

export const nowSeconds = (now = Date.now()) => Math.floor(now / 1000);

/** Expired: deleted as far as any reader is concerned (the table's TTL may not have run yet). */
export const isExpired = (item: { expiresAt?: number }, now = Date.now()) =>
  item.expiresAt !== undefined && item.expiresAt <= nowSeconds(now);

import { randomUUID } from 'node:crypto';
import { deleteObject, putObject } from '#shared/platform/blob-store.ts';
import { invalid, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { logger } from '#shared/platform/logger.ts';
import {
  createDraft,
  discardDraft,
  draftBusy,
  draftForJob,
  dropDraftMarker,
  findDraft,
  isBusy,
  newDraft,
  publishDraft,
  releaseDraft,
} from './drafts.ts';
import { type FromFilterParamsBody, filterParamsFields, filterParamsOf } from './filter-params.ts';
import { requireGroup } from './groups.ts';
import { type DatasetJobType, sendDatasetJob } from './jobs.ts';
import { type DatasetJob, type DatasetRecord, isDraft } from './records.ts';
import { getDataset, reserveVersionNumber } from './repository.ts';
import { checkUpload, decodeBase64File, newUploadKey, requireFileKind } from './uploads.ts';

/**
 * The requests that make drafts and start the jobs that turn them into versions (from-filter-params,
 * create-draft and from-file), and save-draft, which makes the group's draft a version without a job. Everything the request
 * can get wrong is checked before anything is written; a job message goes out last, and if it cannot,
 * the draft made for it is removed again.
 */
export interface Caller {
  workspaceId: number;
  userId: number;
}

const newJob = (type: DatasetJobType, fields: Partial<DatasetJob> = {}): Omit<DatasetJob, 'ownsDraft'> => ({
  id: randomUUID(),
  type,
  status: 'pending',
  startedAt: Date.now(),
  ...fields,
});

/**
 * Writes what the job will read (`prepare`), then sends the job. If either fails the job would never
 * come: what `prepare` wrote is undone, its draft removed (or, reused, handed back), and the error stands.
 */
async function startJob(
  draft: DatasetRecord,
  job: DatasetJob,
  steps: { prepare?: () => Promise<void>; undo?: () => Promise<void> } = {},
): Promise<void> {
  try {
    await steps.prepare?.();
    await sendDatasetJob(job.type, draft.workspaceId, draft.id, job.id);
  } catch (error) {
    try {
      await steps.undo?.();
      if (job.ownsDraft) await discardDraft(draft, job.id);
      else await releaseDraft(draft, job.id);
    } catch (cleanup) {
      logger.warn('Could not remove the draft of a job that was never sent', { error: cleanup as Error });
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------- create-draft

export interface CreateDraftResult {
  draftId: number;
  /** Rows are being copied from the source by a job (202). */
  copying: boolean;
}

export async function createDraftVersion(
  caller: Caller,
  input: { groupId: number; sourceDatasetId?: number | null },
): Promise<CreateDraftResult> {
  const group = await requireGroup(caller.workspaceId, input.groupId);
  const sourceId = input.sourceDatasetId ?? undefined;
  if (sourceId !== undefined) {
    // Another workspace's dataset is not found, like a missing one; one of another group is a bad value.
    const source = await getDataset(caller.workspaceId, sourceId);
    if (!source) throw notFound(`Dataset ${sourceId} not found`);
    const loc = ['body', 'source_dataset_id'];
    if (source.groupId !== group.id) throw invalid(loc, `must be a version of dataset group ${group.id}`);
    if (isDraft(source)) throw invalid(loc, 'is a draft; copy from a version');
  }
  const job = sourceId === undefined ? undefined : { ...newJob('copy'), ownsDraft: true };
  const draft: DatasetRecord = {
    ...newDraft(group, await nextId('dataset'), caller.userId, job ? 'copy' : 'empty', job),
    sourceDatasetId: sourceId,
  };
  await createDraft(draft);
  if (job) await startJob(draft, job);
  return { draftId: draft.id, copying: Boolean(job) };
}

// ------------------------------------------------------------------------------------------- from-file

export interface FromFileInput {
  groupId: number;
  fileName: string;
  /** Exactly one of the two: inline base64, or an upload-url key. */
  base64?: string;
  fileKey?: string;
}

/**
 * A draft for the file and a job to parse it. The group's draft is taken over when it is idle and
 * empty (a new group's first draft is); one with rows or a job running is a 409.
 */
export async function createVersionFromFile(caller: Caller, input: FromFileInput): Promise<number> {
  const { workspaceId } = caller;
  const fileKind = requireFileKind(input.fileName);
  const bytes = input.base64 === undefined ? undefined : decodeBase64File(input.base64);
  const group = await requireGroup(workspaceId, input.groupId);
  const upload = input.fileKey === undefined ? undefined : await checkUpload(workspaceId, input.fileKey);

  const fileKey = upload?.key ?? newUploadKey(workspaceId, input.fileName);
  const job = newJob('file', { fileKey, fileKind, fileEtag: upload?.etag });
  const draft = await draftForJob(group, caller.userId, job, {
    origin: 'file',
    reusable: (existing) => existing.rowCount === 0 && !existing.manifestKey,
    removeReusedOnFailure: true,
  });
  await startJob(
    draft,
    draft.job!,
    bytes
      ? {
          prepare: () => putObject(fileKey, bytes, fileKind === 'csv' ? 'text/csv' : 'application/json'),
          undo: () => deleteObject(fileKey),
        }
      : undefined,
  );
  return draft.id;
}

// ------------------------------------------------------------------------------------------ save-draft

/**
 * The group's draft becomes its next version as it is (POST save-draft), so a group can always get past
 * "draft exists". The number comes from the group's counter, which gives a dataset the same number
 * however often it asks; then one conditional write from the draft as read, then the marker goes. A
 * draft a job is building is a 409 (the job will make it a version, or give it back); none is a 404.
 */
export async function saveDraftVersion(
  caller: Caller,
  groupId: number,
): Promise<{ datasetId: number; versionNumber: number }> {
  const { workspaceId } = caller;
  const group = await requireGroup(workspaceId, groupId);
  const draft = await findDraft(workspaceId, group.id);
  if (!draft) throw notFound(`Dataset group ${group.id} has no draft to save`);
  if (isBusy(draft)) throw draftBusy(group.id, draft.id);
  const versionNumber = await reserveVersionNumber(workspaceId, group.id, draft.id);
  if (versionNumber === undefined) throw notFound(`Dataset group ${group.id} not found`);
  if (!(await publishDraft(draft, versionNumber))) {
    // Changed since it was read: saved by a request racing this one (same outcome), or taken by a job.
    const now = await getDataset(workspaceId, draft.id, { consistent: true });
    if (now?.versionNumber !== versionNumber) throw draftBusy(group.id, draft.id);
  }
  await dropDraftMarker(workspaceId, group.id, draft.id);
  return { datasetId: draft.id, versionNumber };
}

// ---------------------------------------------------------------------------------- from-filter-params

/** The group's draft (reused whatever rows it holds, when no job is building it) or a new one. */
export async function createVersionFromFilterParams(
  caller: Caller,
  body: FromFilterParamsBody,
): Promise<{ datasetId: number; groupId: number; versionNumber: number }> {
  const { workspaceId } = caller;
  const group = await requireGroup(workspaceId, body.dataset_group_id);
  const params = filterParamsOf(body);
  const json = JSON.stringify(params);
  const job = newJob('filter');
  const draft = await draftForJob(group, caller.userId, job, {
    origin: 'filter',
    reusable: () => true,
    removeReusedOnFailure: false,
    extra: (datasetId) => filterParamsFields(params, json, workspaceId, datasetId, job.id),
  });
  const key = draft.filterParamsKey;
  await startJob(draft, draft.job!, key ? { prepare: () => putObject(key, json) } : undefined);
  return { datasetId: draft.id, groupId: group.id, versionNumber: draft.versionNumber };
}

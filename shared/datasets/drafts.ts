import { deletePrefix } from '#shared/platform/blob-store.ts';
import { AppError, conflict } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { logger } from '#shared/platform/logger.ts';
import { jobLeaseSeconds } from './jobs.ts';
import { datasetKey, datasetPrefix, draftMarkerKey, jobPrefix } from './keys.ts';
import {
  type DatasetGroupRecord,
  type DatasetJob,
  type DatasetOrigin,
  type DatasetRecord,
  DRAFT_VERSION,
  isDraft,
  isExpired,
  nowSeconds,
} from './records.ts';
import {
  datasetFromItem,
  deleteItem,
  FILTER_PARAMS_ATTRIBUTE_NAMES,
  getDataset,
  getItem,
  JOB_ATTRIBUTE_NAMES,
  jobAttributes,
  putDataset,
  putNewItem,
  updateItem,
} from './repository.ts';

/**
 * One draft per group. The group's draft is named by a marker item (`DRAFT` in the group's partition)
 * written with a conditional put, so of two racing requests exactly one creates a draft. The marker is
 * written before the dataset item and removed after it, so a crash between the two leaves a marker
 * whose dataset is missing: after a grace period such a marker is stale, and so is one whose dataset
 * expired or became a version. Whoever next needs the group's draft removes a stale marker.
 */
const MARKER_GRACE_MS = 60_000;

/** A job holds its draft until it ends or its lease runs out (then it has crashed for good). */
export function isBusy(dataset: DatasetRecord, now = Date.now()): boolean {
  const job = dataset.job;
  if (!job || job.status === 'done') return false;
  return job.startedAt + jobLeaseSeconds(job.type) * 1000 > now;
}

/** A fresh draft of a group, empty; `job` when a job will build it. */
export function newDraft(
  group: DatasetGroupRecord,
  datasetId: number,
  userId: number,
  origin: DatasetRecord['origin'],
  job?: DatasetJob,
): DatasetRecord {
  const now = Date.now();
  return {
    id: datasetId,
    workspaceId: group.workspaceId,
    groupId: group.id,
    groupName: group.name,
    versionNumber: DRAFT_VERSION,
    userId,
    createdAt: now,
    updatedAt: now,
    columns: [],
    rowCount: 0,
    origin,
    job,
    // A draft its job created goes away by itself if the job never ends.
    expiresAt: job?.ownsDraft ? nowSeconds(now) + jobLeaseSeconds(job.type) : undefined,
  };
}

type MarkerState =
  | { state: 'none' }
  | { state: 'live'; draft?: DatasetRecord }
  | { state: 'stale'; datasetId: number };

async function readMarker(workspaceId: number, groupId: number): Promise<MarkerState> {
  const marker = await getItem(draftMarkerKey(workspaceId, groupId));
  if (!marker) return { state: 'none' };
  const datasetId = Number(marker.datasetId);
  const dataset = await getDataset(workspaceId, datasetId, { consistent: true, includeExpired: true });
  if (dataset && isDraft(dataset) && !isExpired(dataset)) return { state: 'live', draft: dataset };
  // Its dataset item may still be on its way (the marker is written first).
  if (!dataset && Date.now() - Number(marker.createdAt) < MARKER_GRACE_MS) return { state: 'live' };
  return { state: 'stale', datasetId };
}

/** Removes a stale marker, and the expired draft it named if the table's TTL has not yet. */
async function clearStaleMarker(workspaceId: number, groupId: number, datasetId: number): Promise<void> {
  const item = await getItem(datasetKey(workspaceId, datasetId));
  if (item) {
    const dataset = datasetFromItem(item);
    if (isDraft(dataset) && isExpired(dataset)) await discardDraft(dataset);
  }
  await dropDraftMarker(workspaceId, groupId, datasetId);
}

/** The group's draft, or undefined when it has none. */
export async function findDraft(workspaceId: number, groupId: number): Promise<DatasetRecord | undefined> {
  const marker = await readMarker(workspaceId, groupId);
  return marker.state === 'live' ? marker.draft : undefined;
}

export function draftExists(groupId: number, draftId?: number) {
  const which = draftId ? ` (dataset ${draftId})` : '';
  return conflict(`Dataset group ${groupId} already has a draft${which}`, 'draft_exists');
}

/** A job is building the group's draft: it ends with an event (or its lease), then ask again. */
export function draftBusy(groupId: number, draftId: number) {
  return conflict(
    `Dataset group ${groupId} has a draft (dataset ${draftId}) that a job is still building; try again when it has ended`,
    'draft_busy',
  );
}

/** Creates the group's draft; 409 when the group already has one (also when another request just made it). */
export async function createDraft(draft: DatasetRecord): Promise<void> {
  const { workspaceId, groupId, id } = draft;
  for (let attempt = 0; attempt < 3; attempt++) {
    const marker = { ...draftMarkerKey(workspaceId, groupId), datasetId: id, createdAt: Date.now() };
    if (await putNewItem(marker)) {
      try {
        await putDataset(draft);
      } catch (error) {
        await dropDraftMarker(workspaceId, groupId, id);
        throw error;
      }
      return;
    }
    const existing = await readMarker(workspaceId, groupId);
    if (existing.state === 'live') throw draftExists(groupId, existing.draft?.id);
    if (existing.state === 'stale') await clearStaleMarker(workspaceId, groupId, existing.datasetId);
  }
  throw draftExists(groupId);
}

/**
 * Gives an idle draft to a job (optimistically: only if its job is still the one read). False when
 * another job got there first.
 */
export async function claimDraft(
  draft: DatasetRecord,
  job: DatasetJob,
  set: Record<string, unknown> = {},
): Promise<boolean> {
  const now = Date.now();
  return updateItem(datasetKey(draft.workspaceId, draft.id), {
    set: {
      ...jobAttributes(job),
      ...set,
      updatedAt: now,
      expiresAt: job.ownsDraft ? nowSeconds(now) + jobLeaseSeconds(job.type) : undefined,
    },
    // What a previous job or query left must not pass for this one's.
    remove: [...JOB_ATTRIBUTE_NAMES, ...FILTER_PARAMS_ATTRIBUTE_NAMES].filter(
      (attribute) => !(attribute in jobAttributes(job)) && !(attribute in set),
    ),
    ...stillAsRead(draft),
  });
}

/** The condition of a change to a draft read a moment ago: still a draft, held by the same job or none. */
function stillAsRead(draft: DatasetRecord): { condition: string; values: Record<string, unknown> } {
  const previous = draft.job;
  return {
    condition: previous
      ? '#versionNumber = :draft AND #jobId = :previous AND #jobStatus = :status'
      : '#versionNumber = :draft AND attribute_not_exists(#jobId)',
    values: {
      ':draft': DRAFT_VERSION,
      ...(previous ? { ':previous': previous.id, ':status': previous.status } : {}),
    },
  };
}

/**
 * Installs rows appended to an idle draft (add-request-log, add-trace): only if the draft is still as
 * read, rows included (the same manifest), so of two appends racing one wins and the other reads again.
 */
export async function installAppendedRows(
  draft: DatasetRecord,
  rows: { manifestKey: string; columns: string[]; rowCount: number },
): Promise<boolean> {
  const { condition, values } = stillAsRead(draft);
  const sameRows = draft.manifestKey ? '#manifestKey = :manifest' : 'attribute_not_exists(#manifestKey)';
  return updateItem(datasetKey(draft.workspaceId, draft.id), {
    set: { ...rows, updatedAt: Date.now() },
    condition: `${condition} AND ${sameRows}`,
    values: { ...values, ...(draft.manifestKey ? { ':manifest': draft.manifestKey } : {}) },
  });
}

/** Hands a reused draft back as it was before the job (rows untouched); false when the job no longer holds it. */
export async function releaseDraft(draft: DatasetRecord, jobId: string): Promise<boolean> {
  await deletePrefix(jobPrefix(draft.workspaceId, draft.id, jobId));
  return updateItem(datasetKey(draft.workspaceId, draft.id), {
    set: { updatedAt: Date.now() },
    remove: [...JOB_ATTRIBUTE_NAMES, ...FILTER_PARAMS_ATTRIBUTE_NAMES, 'expiresAt'],
    condition: '#jobId = :job',
    values: { ':job': jobId },
  });
}

/**
 * Makes a draft a version as it is (save-draft), only if it is still as the caller read it: a draft,
 * held by the same job or by none. A job that has not ended (its lease ran out) loses its hold, so it
 * can never change the version. False when the draft changed meanwhile.
 */
export async function publishDraft(draft: DatasetRecord, versionNumber: number): Promise<boolean> {
  const dropJob = draft.job !== undefined && draft.job.status !== 'done';
  return updateItem(datasetKey(draft.workspaceId, draft.id), {
    set: { versionNumber, updatedAt: Date.now() },
    remove: ['expiresAt', ...(dropJob ? [...JOB_ATTRIBUTE_NAMES, ...FILTER_PARAMS_ATTRIBUTE_NAMES] : [])],
    ...stillAsRead(draft),
  });
}

/**
 * Removes a draft: its objects first, then its item, then the group's marker (each step leaves what a
 * reader can recognise: an item without objects reads as empty, a marker without an item is stale).
 * With `jobId`, only while that job holds the draft.
 */
export async function discardDraft(draft: DatasetRecord, jobId?: string): Promise<boolean> {
  const { workspaceId, id, groupId } = draft;
  await deletePrefix(datasetPrefix(workspaceId, id));
  const deleted = jobId
    ? await deleteItem(datasetKey(workspaceId, id), '#jobId = :job', { ':job': jobId })
    : await deleteItem(datasetKey(workspaceId, id));
  if (deleted) {
    await dropDraftMarker(workspaceId, groupId, id);
    logger.info('Draft removed', { workspaceId, datasetId: id });
  }
  return deleted;
}

/** The group may have a new draft: the marker goes, if it still names this dataset. */
export async function dropDraftMarker(
  workspaceId: number,
  groupId: number,
  datasetId: number,
): Promise<void> {
  await deleteItem(draftMarkerKey(workspaceId, groupId), '#datasetId = :id', { ':id': datasetId });
}

export interface DraftForJobOptions {
  origin: DatasetOrigin;
  /** Whether the group's idle draft may be given to this job (else 409). */
  reusable(draft: DatasetRecord): boolean;
  /** A reused draft is removed if the job fails (true), or handed back as it was (false). */
  removeReusedOnFailure: boolean;
  /** More attributes for the draft, once its id is known. */
  extra?(datasetId: number): Record<string, unknown>;
}

/**
 * The draft a job will build: the group's draft when it is idle and `reusable`, else a new draft the
 * job owns. 409 when the group's draft is busy with another job or may not be reused.
 */
export async function draftForJob(
  group: DatasetGroupRecord,
  userId: number,
  job: Omit<DatasetJob, 'ownsDraft'>,
  options: DraftForJobOptions,
): Promise<DatasetRecord> {
  for (let attempt = 0; ; attempt++) {
    const existing = await findDraft(group.workspaceId, group.id);
    if (existing) {
      if (isBusy(existing)) throw draftBusy(group.id, existing.id);
      if (!options.reusable(existing)) {
        throw conflict(
          `Dataset group ${group.id} already has a draft (dataset ${existing.id}) that holds rows; save it as a version (save-draft) first`,
          'draft_exists',
        );
      }
      const held: DatasetJob = { ...job, ownsDraft: options.removeReusedOnFailure };
      const extra = options.extra?.(existing.id) ?? {};
      if (await claimDraft(existing, held, extra)) return { ...existing, ...extra, job: held };
    } else {
      const id = await nextId('dataset');
      const draft: DatasetRecord = {
        ...newDraft(group, id, userId, options.origin, { ...job, ownsDraft: true }),
        ...options.extra?.(id),
      };
      try {
        await createDraft(draft);
        return draft;
      } catch (error) {
        // Another request made a draft just now: look again, it may be reusable.
        if (!(error instanceof AppError && error.status === 409) || attempt >= 2) throw error;
      }
    }
    if (attempt >= 2) throw draftExists(group.id);
  }
}

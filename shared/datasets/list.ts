import { type ExternalId, findExternalIdOwner, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { checkWorkspaceParam, notFound } from '#shared/platform/errors.ts';
import {
  givenTogether,
  idParam,
  paginationQuery,
  sortOrderNeedsSortBy,
  wellFormedString,
} from '#shared/platform/schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { entityListFilters } from '#shared/versions/schemas.ts';
import {
  type FilterParams,
  type FilterParamsListing,
  type ListedFilterParams,
  listedFilterParamsOf,
  loadFilterParams,
} from './filter-params.ts';
import {
  type DatasetJob,
  type DatasetRecord,
  DRAFT_VERSION,
  type JobFailureRecord,
  jobFailureOf,
} from './records.ts';
import { getDataset, getJobFailure, queryDatasets } from './repository.ts';

/**
 * GET /api/public/v2/datasets: the workspace's datasets (versions and drafts), or one group's, in the
 * reference's `Dataset` shape. One Query of the workspace's (GSI2) or the group's (GSI1) partition;
 * filters and order apply to what it returns (a workspace holds hundreds or thousands of datasets,
 * not millions), then the external ids of the page's groups. Each dataset's stored filter params are
 * shown bounded (filter-params.ts, listedFilterParams), so a page stays far below Lambda's 6 MB answer
 * limit; GET /api/public/v2/datasets/{dataset_id} shows one dataset with all of them.
 */
export const LIST_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'id'] as const;

export interface ListDatasetsQuery {
  dataset_group_id?: number;
  name?: string;
  status: 'active' | 'deleted' | 'all';
  page: number;
  per_page: number;
  sort_by?: (typeof LIST_SORT_FIELDS)[number];
  /** Only with sort_by; desc when absent. */
  sort_order?: 'asc' | 'desc';
  created_after?: number;
  created_before?: number;
  updated_after?: number;
  updated_before?: number;
  external_source?: string;
  external_id?: string;
  workspace_id?: number;
}

export interface DatasetView {
  id: number;
  dataset_group_id: number;
  version_number: number;
  column_names: string[];
  filter_params: FilterParams | ListedFilterParams | null;
  /** True when `filter_params` shows less than is stored (a list's bound): read the dataset for all. */
  filter_params_truncated: boolean;
  is_deleted: boolean;
  user_id: number;
  row_count: number;
  created_at: string;
  updated_at: string;
  dataset_group: { id: number; name: string; workspace_id: number; is_deleted: boolean };
  /** The group's (the reference's `Dataset.external_ids`). */
  external_ids: ExternalId[];
  /** The state of the last job that built this dataset (from-file, from-filter-params, a copy); null: none. */
  job_status: DatasetJobStatus | null;
  /** Why that job failed (FAILED only). */
  job_error: string | null;
}

export const DATASET_JOB_STATUSES = ['RUNNING', 'SUCCESS', 'FAILED'] as const;
export type DatasetJobStatus = (typeof DATASET_JOB_STATUSES)[number];

const JOB_STATUS: Record<DatasetJob['status'], DatasetJobStatus> = {
  pending: 'RUNNING',
  finalized: 'SUCCESS',
  done: 'SUCCESS',
  failing: 'FAILED',
};

/** The job fields of a view: the dataset's job, else a failure newer than the dataset's last change. */
function jobState(
  dataset: DatasetRecord,
  failure?: JobFailureRecord,
): Pick<DatasetView, 'job_status' | 'job_error'> {
  if (dataset.job?.status) {
    const status = JOB_STATUS[dataset.job.status];
    return { job_status: status, job_error: status === 'FAILED' ? (dataset.job.error ?? null) : null };
  }
  if (failure && failure.failedAt >= dataset.updatedAt)
    return { job_status: 'FAILED', job_error: failure.error };
  return { job_status: null, job_error: null };
}

/** `listing`: the bounded filter params of a list; else all of them. */
export async function toDatasetView(
  dataset: DatasetRecord,
  externalIds: ExternalId[],
  detail: 'listing' | 'full' = 'full',
  failure?: JobFailureRecord,
): Promise<DatasetView> {
  const unreadable: FilterParamsListing = { params: null, truncated: false };
  const { params, truncated } =
    detail === 'listing'
      ? await listedFilterParamsOf(dataset).catch(() => unreadable)
      : { params: await loadFilterParams(dataset).catch(() => null), truncated: false };
  return {
    id: dataset.id,
    dataset_group_id: dataset.groupId,
    version_number: dataset.versionNumber,
    column_names: dataset.columns,
    filter_params: params,
    filter_params_truncated: truncated,
    is_deleted: false,
    user_id: dataset.userId,
    row_count: dataset.rowCount,
    created_at: toIso(dataset.createdAt),
    updated_at: toIso(dataset.updatedAt),
    dataset_group: {
      id: dataset.groupId,
      name: dataset.groupName,
      workspace_id: dataset.workspaceId,
      is_deleted: false,
    },
    external_ids: externalIds,
    ...jobState(dataset, failure),
  };
}

/** A draft its failed job removed, as GET /datasets/{id} shows it while the failure is kept. */
function removedByFailedJob(failure: JobFailureRecord, externalIds: ExternalId[]): DatasetView {
  return {
    id: failure.datasetId,
    dataset_group_id: failure.groupId,
    version_number: DRAFT_VERSION,
    column_names: [],
    filter_params: null,
    filter_params_truncated: false,
    is_deleted: true,
    user_id: failure.userId,
    row_count: 0,
    created_at: toIso(failure.createdAt),
    updated_at: toIso(failure.failedAt),
    dataset_group: {
      id: failure.groupId,
      name: failure.groupName,
      workspace_id: failure.workspaceId,
      is_deleted: false,
    },
    external_ids: externalIds,
    job_status: 'FAILED',
    job_error: failure.error,
  };
}

const SORT_VALUE: Record<(typeof LIST_SORT_FIELDS)[number], (d: DatasetRecord) => number | string> = {
  created_at: (d) => d.createdAt,
  updated_at: (d) => d.updatedAt,
  name: (d) => d.groupName.toLowerCase(),
  id: (d) => d.id,
};

/**
 * Which group's partition to read: the one asked for, the one owning the external id (none: nothing to
 * list), or the whole workspace.
 */
async function listScope(
  workspaceId: number,
  query: ListDatasetsQuery,
): Promise<{ groupId: number } | 'workspace' | 'nothing'> {
  if (query.external_source === undefined || query.external_id === undefined) {
    return query.dataset_group_id ? { groupId: query.dataset_group_id } : 'workspace';
  }
  const owner = await findExternalIdOwner(workspaceId, 'dataset_group', {
    source: query.external_source,
    external_id: query.external_id,
  });
  if (owner === undefined || (query.dataset_group_id !== undefined && query.dataset_group_id !== owner)) {
    return 'nothing';
  }
  return { groupId: owner };
}

export async function listDatasets(workspaceId: number, query: ListDatasetsQuery) {
  checkWorkspaceParam(query.workspace_id, workspaceId);
  const scope = await listScope(workspaceId, query);
  // Nothing is ever deleted yet, so `deleted` lists nothing and `all` lists the active ones.
  const all =
    query.status === 'deleted' || scope === 'nothing' ? [] : await queryDatasets(workspaceId, scope);
  const name = query.name?.toLowerCase();
  const inRange = (value: number, after?: number, before?: number) =>
    (after === undefined || value >= after) && (before === undefined || value <= before);
  const matching = all.filter(
    (d) =>
      (!name || d.groupName.toLowerCase().includes(name)) &&
      inRange(d.createdAt, query.created_after, query.created_before) &&
      inRange(d.updatedAt, query.updated_after, query.updated_before),
  );
  const value = SORT_VALUE[query.sort_by ?? 'id'];
  const sign = query.sort_order === 'asc' ? 1 : -1;
  matching.sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    return sign * (x < y ? -1 : x > y ? 1 : a.id - b.id);
  });
  const start = (query.page - 1) * query.per_page;
  const page = matching.slice(start, start + query.per_page);
  // One mappings Query per group on the page (GSI1, so a mapping attached a moment ago may be missing).
  const groupIds = [...new Set(page.map((d) => d.groupId))];
  const mappings = new Map(
    await Promise.all(
      groupIds.map(async (id) => [id, await listExternalIds(workspaceId, 'dataset_group', id)] as const),
    ),
  );
  const datasets = await Promise.all(
    page.map((d) => toDatasetView(d, mappings.get(d.groupId) ?? [], 'listing')),
  );
  return {
    success: true as const,
    message: 'success',
    datasets,
    page: query.page,
    per_page: query.per_page,
    total: matching.length,
    pages: Math.ceil(matching.length / query.per_page),
  };
}

/**
 * GET /api/public/v2/datasets/{dataset_id}: one dataset, its filter params whole; 404 as for rows. A
 * draft whose job failed and removed it still answers for a week (`is_deleted`, `job_status: FAILED`,
 * `job_error`), so whoever started the job learns why.
 */
export async function getDatasetView(workspaceId: number, datasetId: number) {
  const [dataset, readFailure] = await Promise.all([
    getDataset(workspaceId, datasetId),
    getJobFailure(workspaceId, datasetId),
  ]);
  // A failed job records its failure before it removes its draft: a draft that went while the two were
  // read has its failure by now, or is still there, expired, its job failing (the draft expires the
  // moment its job fails, before the failure is recorded): it answers as removed, with that reason.
  const failure =
    dataset || readFailure
      ? readFailure
      : ((await getJobFailure(workspaceId, datasetId, true)) ?? (await failingDraft(workspaceId, datasetId)));
  const groupId = dataset?.groupId ?? failure?.groupId;
  if (groupId === undefined) throw notFound(`Dataset ${datasetId} not found`);
  const externalIds = await listExternalIds(workspaceId, 'dataset_group', groupId);
  const view = dataset
    ? await toDatasetView(dataset, externalIds, 'full', failure)
    : removedByFailedJob(failure!, externalIds);
  return { success: true as const, message: 'success', dataset: view };
}

/** The failure of a draft whose job is failing and which expired with it (not yet recorded apart). */
async function failingDraft(workspaceId: number, datasetId: number): Promise<JobFailureRecord | undefined> {
  const draft = await getDataset(workspaceId, datasetId, { consistent: true, includeExpired: true });
  return draft?.job?.status === 'failing' ? jobFailureOf(draft, draft.job, draft.updatedAt) : undefined;
}

/**
 * The query of GET /datasets as a query string carries it. The reference's filters by prompt, prompt
 * version, label, report or creator are validated and ignored: datasets here are not linked to those.
 */
export const listDatasetsQuerySchema = z
  .object({
    dataset_group_id: z.optional(idParam),
    name: z.optional(wellFormedString().check(z.maxLength(255))),
    status: z._default(z.enum(['active', 'deleted', 'all']), 'active'),
    ...paginationQuery(100, 10),
    sort_by: z.optional(z.enum(LIST_SORT_FIELDS)),
    sort_order: z.optional(z.enum(['asc', 'desc'])),
    ...entityListFilters,
    workspace_id: z.optional(idParam),
    prompt_id: z.optional(idParam),
    prompt_version_id: z.optional(idParam),
    prompt_label_id: z.optional(idParam),
    report_id: z.optional(idParam),
    created_by_email: z.optional(z.string().check(z.maxLength(320))),
  })
  .check(
    z.superRefine(givenTogether('external_source', 'external_id')),
    z.superRefine(sortOrderNeedsSortBy),
  ) satisfies z.ZodMiniType<ListDatasetsQuery, unknown>;

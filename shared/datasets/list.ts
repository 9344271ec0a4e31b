import * as z from 'zod';
import { type ExternalId, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { idParam, paginationQuery } from '#shared/platform/schemas.ts';
import { parseTimestamp, toIso } from '#shared/platform/time.ts';
import { type FilterParams, loadFilterParams } from './filter-params.ts';
import type { DatasetRecord } from './records.ts';
import { queryDatasets } from './repository.ts';

/**
 * GET /api/public/v2/datasets: the workspace's datasets (versions and drafts), or one group's, in the
 * reference's `Dataset` shape. One Query of the workspace's (GSI2) or the group's (GSI1) partition;
 * filters and order apply to what it returns (a workspace holds hundreds or thousands of datasets,
 * not millions), then only the page's stored filter params that live in S3 are read, and the external
 * ids of the page's groups.
 */
export const LIST_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'id'] as const;

export interface ListDatasetsQuery {
  dataset_group_id?: number;
  name?: string;
  status: 'active' | 'deleted' | 'all';
  page: number;
  per_page: number;
  sort_by?: (typeof LIST_SORT_FIELDS)[number];
  sort_order: 'asc' | 'desc';
  created_after?: number;
  created_before?: number;
  updated_after?: number;
  updated_before?: number;
}

export interface DatasetView {
  id: number;
  dataset_group_id: number;
  version_number: number;
  column_names: string[];
  filter_params: FilterParams | null;
  is_deleted: boolean;
  user_id: number;
  row_count: number;
  created_at: string;
  updated_at: string;
  dataset_group: { id: number; name: string; workspace_id: number; is_deleted: boolean };
  /** The group's (the reference's `Dataset.external_ids`). */
  external_ids: ExternalId[];
}

export async function toDatasetView(dataset: DatasetRecord, externalIds: ExternalId[]): Promise<DatasetView> {
  return {
    id: dataset.id,
    dataset_group_id: dataset.groupId,
    version_number: dataset.versionNumber,
    column_names: dataset.columns,
    filter_params: await loadFilterParams(dataset).catch(() => null),
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
  };
}

const SORT_VALUE: Record<(typeof LIST_SORT_FIELDS)[number], (d: DatasetRecord) => number | string> = {
  created_at: (d) => d.createdAt,
  updated_at: (d) => d.updatedAt,
  name: (d) => d.groupName.toLowerCase(),
  id: (d) => d.id,
};

export async function listDatasets(workspaceId: number, query: ListDatasetsQuery) {
  // Nothing is ever deleted yet, so `deleted` lists nothing and `all` lists the active ones.
  const all =
    query.status === 'deleted'
      ? []
      : await queryDatasets(
          workspaceId,
          query.dataset_group_id ? { groupId: query.dataset_group_id } : 'workspace',
        );
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
  const datasets = await Promise.all(page.map((d) => toDatasetView(d, mappings.get(d.groupId) ?? [])));
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

const queryTime = z.string().transform((value, ctx) => {
  const ms = parseTimestamp(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time' });
    return z.NEVER;
  }
  return ms;
});

/**
 * The query of GET /datasets as a query string carries it. The reference's filters by prompt, report
 * or creator have nothing to match here yet and are ignored.
 */
export const listDatasetsQuerySchema = z.object({
  dataset_group_id: idParam.optional(),
  name: z.string().max(255).optional(),
  status: z.enum(['active', 'deleted', 'all']).default('active'),
  ...paginationQuery(100, 10),
  sort_by: z.enum(LIST_SORT_FIELDS).optional(),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  created_after: queryTime.optional(),
  created_before: queryTime.optional(),
  updated_after: queryTime.optional(),
  updated_before: queryTime.optional(),
}) satisfies z.ZodType<ListDatasetsQuery, unknown>;

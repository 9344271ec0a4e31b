import { getObjectText } from '#shared/platform/blob-store.ts';
import { sortOrderNeedsSortBy, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import type { FilterGroup } from '#shared/request-logs/filters.ts';
import { type RequestLogQuery, requestLogQuerySchema } from '#shared/request-logs/query.ts';
import { filterParamsKey } from './keys.ts';
import type { DatasetRecord } from './records.ts';

/**
 * The parameters of from-filter-params, stored with the dataset they fill so that a refresh can replay
 * the query (GET /datasets shows them as `filter_params`). Small ones sit on the dataset item; a long
 * `request_log_ids` list (up to 50,000 ids, ~400 KB, past DynamoDB's item limit) goes to S3.
 */
export const MAX_REQUEST_LOG_IDS = 50_000;
/** A from-filter-params job reads at most this many logs. */
export const FILTER_JOB_LOG_CAP = 50_000;
const INLINE_PARAMS_BYTES = 32 * 1024;

export const fromFilterParamsBodySchema = z
  .extend(requestLogQuerySchema, {
    dataset_group_id: z.int().check(z.gte(1)),
    request_log_ids: z.nullish(
      z
        .array(z.int().check(z.gte(1)))
        .check(z.maxLength(MAX_REQUEST_LOG_IDS, `at most ${MAX_REQUEST_LOG_IDS} request_log_ids`)),
    ),
    variables_to_parse: z.nullish(
      z.array(wellFormedString().check(z.minLength(1), z.maxLength(255))).check(z.maxLength(200)),
    ),
    limit: z.nullish(z.int().check(z.gte(1))),
  })
  .check(z.superRefine(sortOrderNeedsSortBy));
export type FromFilterParamsBody = z.infer<typeof fromFilterParamsBodySchema>;

export interface FilterParams {
  request_log_ids?: number[];
  filter_group?: FilterGroup;
  q?: string;
  sort_by?: RequestLogQuery['sort_by'];
  sort_order?: RequestLogQuery['sort_order'];
  limit?: number;
  variables_to_parse?: string[];
}

/** What is stored: the fields the client set, nulls left out. */
export function filterParamsOf(body: FromFilterParamsBody): FilterParams {
  const params: FilterParams = {};
  if (body.request_log_ids) params.request_log_ids = body.request_log_ids;
  if (body.filter_group) params.filter_group = body.filter_group;
  if (body.q != null) params.q = body.q;
  if (body.sort_by) params.sort_by = body.sort_by;
  if (body.sort_order) params.sort_order = body.sort_order;
  if (body.limit != null) params.limit = body.limit;
  if (body.variables_to_parse) params.variables_to_parse = body.variables_to_parse;
  return params;
}

/**
 * Where the params go on the dataset item: inline (`json`, the params as JSON), or a pointer to an S3
 * object below the job's prefix (so a failed job's clean-up removes it with the rest), which the caller
 * writes before the job starts, plus the preview a list shows, so a list never reads S3.
 */
export function filterParamsFields(
  params: FilterParams,
  json: string,
  workspaceId: number,
  datasetId: number,
  jobId: string,
): { filterParams: string } | { filterParamsKey: string; filterParamsPreview: string } {
  if (Buffer.byteLength(json, 'utf8') <= INLINE_PARAMS_BYTES) return { filterParams: json };
  return {
    filterParamsKey: filterParamsKey(workspaceId, datasetId, jobId),
    filterParamsPreview: JSON.stringify(listedFilterParams(params)),
  };
}

export async function loadFilterParams(dataset: DatasetRecord): Promise<FilterParams | null> {
  if (dataset.filterParams) return JSON.parse(dataset.filterParams) as FilterParams;
  if (dataset.filterParamsKey)
    return JSON.parse(await getObjectText(dataset.filterParamsKey)) as FilterParams;
  return null;
}

/**
 * GET /datasets lists up to 100 datasets, each of which may name 50,000 request logs (~0.5-0.9 MB of
 * JSON): inlined, a page could pass the 6 MB a Lambda may answer. A list shows at most this many ids per
 * dataset (GET /datasets/{dataset_id} shows them all).
 */
export const LISTED_REQUEST_LOG_IDS = 100;

export interface ListedFilterParams extends FilterParams {
  /** How many ids the request named (the list shows the first LISTED_REQUEST_LOG_IDS). */
  request_log_ids_count?: number;
}

/** The params as a list shows them, and whether that is less than they are. */
export interface FilterParamsListing {
  params: ListedFilterParams | null;
  truncated: boolean;
}

/**
 * At most the first LISTED_REQUEST_LOG_IDS ids, with their count; a filter_group larger than an inline
 * item's params (thousands of `in` values) is left out. So a dataset's listing stays under ~35 KB.
 */
export function listedFilterParams(params: FilterParams): FilterParamsListing {
  const { request_log_ids: ids, ...rest } = params;
  const listed: ListedFilterParams = ids
    ? { request_log_ids: ids.slice(0, LISTED_REQUEST_LOG_IDS), request_log_ids_count: ids.length, ...rest }
    : rest;
  let truncated = ids !== undefined && ids.length > LISTED_REQUEST_LOG_IDS;
  if (listed.filter_group && JSON.stringify(listed.filter_group).length > INLINE_PARAMS_BYTES) {
    delete listed.filter_group;
    truncated = true;
  }
  return { params: listed, truncated };
}

export async function listedFilterParamsOf(dataset: DatasetRecord): Promise<FilterParamsListing> {
  if (dataset.filterParamsPreview) return JSON.parse(dataset.filterParamsPreview) as FilterParamsListing;
  // Inline params, or (stored before previews) an S3 object.
  const params = await loadFilterParams(dataset);
  return params ? listedFilterParams(params) : { params: null, truncated: false };
}

import * as z from 'zod';
import { getObjectText } from '#shared/platform/blob-store.ts';
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

export const fromFilterParamsBodySchema = requestLogQuerySchema.extend({
  dataset_group_id: z.int().min(1),
  request_log_ids: z
    .array(z.int().min(1))
    .max(MAX_REQUEST_LOG_IDS, `at most ${MAX_REQUEST_LOG_IDS} request_log_ids`)
    .nullish(),
  variables_to_parse: z.array(z.string().min(1).max(255)).max(200).nullish(),
  limit: z.int().min(1).nullish(),
});
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
 * Where the params go on the dataset item: inline, or a pointer to an S3 object below the job's prefix
 * (so a failed job's clean-up removes it with the rest), which the caller writes before the job starts.
 */
export function filterParamsFields(
  json: string,
  workspaceId: number,
  datasetId: number,
  jobId: string,
): { filterParams: string } | { filterParamsKey: string } {
  if (Buffer.byteLength(json, 'utf8') <= INLINE_PARAMS_BYTES) return { filterParams: json };
  return { filterParamsKey: filterParamsKey(workspaceId, datasetId, jobId) };
}

export async function loadFilterParams(dataset: DatasetRecord): Promise<FilterParams | null> {
  if (dataset.filterParams) return JSON.parse(dataset.filterParams) as FilterParams;
  if (dataset.filterParamsKey)
    return JSON.parse(await getObjectText(dataset.filterParamsKey)) as FilterParams;
  return null;
}

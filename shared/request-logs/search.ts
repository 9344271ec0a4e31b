import { type Page, toPage } from '#shared/platform/pagination.ts';
import { toIso } from '#shared/platform/time.ts';
import { type RequestLogQuery, requestLogWindow } from './query.ts';
import { type RequestLogRecord, usageOf } from './record.ts';

/**
 * POST /api/public/v2/requests/search: one page of the sorted matches, with the item fields of the
 * reference OpenAPI's RequestLogSearchResult (plus status, scores and prompt fields).
 *
 * A search reads at most SEARCH_MAX_EXAMINED logs of its plan, so that its latency and read cost stay
 * bounded on any workspace (an API Gateway integration times out after 29 s). When more were left,
 * `incomplete_results` is true and the page and `total` describe the most recent logs read (the oldest,
 * for an ascending time order); a time range, prompt or status filter narrows what is read.
 */
export const SEARCH_MAX_EXAMINED = 50_000;

export const SEARCH_DEFAULT_PER_PAGE = 10;
export const SEARCH_MAX_PER_PAGE = 25;

export interface SearchRequest extends RequestLogQuery {
  page: number;
  per_page: number;
  /** false leaves `prompt_name` out of the items; absent or null keeps it. */
  include_prompt_name?: boolean | null;
}

export type SearchResponse = { success: true } & Page<RequestLogSearchResult> & {
    incomplete_results: boolean;
  };

export async function searchRequestLogs(
  workspaceId: number,
  request: SearchRequest,
): Promise<SearchResponse> {
  const { page, per_page: perPage } = request;
  const { records, total, complete } = await requestLogWindow(workspaceId, request, {
    offset: (page - 1) * perPage,
    count: perPage,
    maxExamined: SEARCH_MAX_EXAMINED,
  });
  return {
    success: true,
    ...toPage(
      records.map((record) =>
        withoutPromptName(toSearchResult(record), request.include_prompt_name === false),
      ),
      page,
      perPage,
      total,
    ),
    incomplete_results: !complete,
  };
}

export type RequestLogSearchResult = Omit<ReturnType<typeof toSearchResult>, 'prompt_name'> & {
  prompt_name?: string | null;
};

function withoutPromptName(item: RequestLogSearchResult, omit: boolean): RequestLogSearchResult {
  if (!omit) return item;
  const { prompt_name: _, ...rest } = item;
  return rest;
}

/**
 * A log as a search lists it. `metadata` is a list of one-key objects and `scores` a list of
 * `{name, score}`, the list forms of the reference; `latency` is in seconds, as there.
 */
export function toSearchResult(record: RequestLogRecord) {
  return {
    id: record.id,
    engine: record.model,
    provider_type: record.provider,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    price: record.price,
    usage: usageOf(record),
    cost: record.cost ?? null,
    request_start_time: toIso(record.request_start_time),
    request_end_time: toIso(record.request_end_time),
    latency: (record.request_end_time - record.request_start_time) / 1000,
    tags_array: record.tags,
    metadata: Object.entries(record.metadata).map(([key, value]) => ({ [key]: value })),
    scores: Object.entries(record.scores).map(([name, score]) => ({ name, score })),
    score: record.score,
    prompt_name: record.prompt_name,
    prompt_id: record.prompt_id,
    prompt_version_number: record.prompt_version_number,
    status: record.status,
    error_type: record.error_type,
    error_message: record.error_message,
    group_id: record.group_id ?? null,
  };
}

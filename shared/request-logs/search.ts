import { type Page, toPage } from '#shared/platform/pagination.ts';
import { toIso } from '#shared/platform/time.ts';
import { type RequestLogQuery, requestLogWindow } from './query.ts';
import { type RequestLogRecord, usageOf } from './record.ts';
import { decodeCursor, encodeCursor } from './search-cursor.ts';

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
/** A cursor is about 150 characters; anything far longer is not one. */
export const MAX_CURSOR_LENGTH = 1024;

export interface SearchRequest extends RequestLogQuery {
  /** Absent with a cursor (the cursor knows its page), else 1. */
  page?: number | null;
  per_page: number;
  /** Continues after the last row of the page that returned it (search-cursor.ts). */
  cursor?: string | null;
  /** false: no `total` and `pages` (null), and a time-ordered page stops reading once it is full. */
  include_total?: boolean | null;
  /** false leaves `prompt_name` out of the items; absent or null keeps it. */
  include_prompt_name?: boolean | null;
}

export type SearchResponse = { success: true } & Omit<Page<RequestLogSearchResult>, 'total' | 'pages'> & {
    total: number | null;
    pages: number | null;
    next_cursor: string | null;
    incomplete_results: boolean;
  };

export async function searchRequestLogs(
  workspaceId: number,
  request: SearchRequest,
): Promise<SearchResponse> {
  const { per_page: perPage } = request;
  const countAll = request.include_total !== false;
  const cursor = request.cursor ? await decodeCursor(workspaceId, request, request.cursor) : undefined;
  const page = cursor ? cursor.page + 1 : (request.page ?? 1);
  const window = await requestLogWindow(workspaceId, request, {
    offset: cursor ? 0 : (page - 1) * perPage,
    count: perPage,
    maxExamined: SEARCH_MAX_EXAMINED,
    after: cursor?.after,
    countAll,
  });
  const items = window.records.map((record) =>
    withoutPromptName(toSearchResult(record), request.include_prompt_name === false),
  );
  const hasPrev = page > 1;
  const pageFields =
    window.total === null
      ? {
          page,
          per_page: perPage,
          pages: null,
          total: null,
          has_next: window.next !== undefined,
          has_prev: hasPrev,
          next_num: window.next !== undefined ? page + 1 : null,
          prev_num: hasPrev ? page - 1 : null,
        }
      : toPage(items, page, perPage, window.total);
  return {
    success: true,
    ...pageFields,
    items,
    next_cursor: window.next ? await encodeCursor(workspaceId, request, { page, after: window.next }) : null,
    incomplete_results: !window.complete,
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

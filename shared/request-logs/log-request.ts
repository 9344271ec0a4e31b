import { costOf } from '#shared/costs/cost.ts';
import { workspaceOverrides } from '#shared/costs/overrides.ts';
import { nextId } from '#shared/platform/ids.ts';
import type { JsonObject } from '#shared/platform/json.ts';
import { findLoggedPromptVersion } from '#shared/prompts/lookup.ts';
import type { VersionRecord } from '#shared/prompts/records.ts';
import { toPromptVersionView } from '#shared/prompts/views.ts';
import { requireGroup } from './groups.ts';
import { type LogRequestBody, logRequestBodySchema } from './log-request-schema.ts';
import type { RequestLogRecord, Usage } from './record.ts';
import { putRequestLog } from './repository.ts';

/** What POST /log-request answers. */
export interface LogRequestResult {
  id: number;
  prompt_version: Record<string, unknown> | null;
  status: RequestLogRecord['status'];
  error_type: string | null;
  error_message: string | null;
}

/**
 * The body as the client sent it: the JSON fields are stored from here (validated, never re-serialised
 * through the schema), and so are fields the API does not define.
 */
export type RawBody = Record<string, unknown>;

const DEFINED_FIELDS = new Set(Object.keys(logRequestBodySchema.shape));

/**
 * Fields never kept under `extra`: `api_key` is a credential. The HTTP wrapper already takes it out of a
 * route's body, but a log body can arrive nested (a span's `log_request`), where the wrapper never looks.
 */
const CREDENTIAL_FIELDS = new Set(['api_key']);

function undefinedFields(raw: RawBody): JsonObject | undefined {
  const extra = Object.fromEntries(
    Object.entries(raw).filter(([name]) => !DEFINED_FIELDS.has(name) && !CREDENTIAL_FIELDS.has(name)),
  );
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/**
 * Records one request. Validation has already happened, so the only writes are the id block (amortised)
 * and the log itself: one PutItem on the common path, plus an S3 put for an oversized log. A log that
 * names a prompt (prompt_id or prompt_name) first reads that template version: an unknown one is a 422;
 * one that names a group reads it alongside: an unknown one is a 404.
 */
export async function logRequest(
  workspaceId: number,
  body: LogRequestBody,
  raw: RawBody,
  server: ServerFields = {},
): Promise<LogRequestResult> {
  const promptVersion = await resolveLogReferences(workspaceId, body);
  const record = await newRequestLog(
    await nextId('request_log'),
    workspaceId,
    body,
    raw,
    promptVersion,
    server,
  );
  await putRequestLog(record);
  return {
    id: record.id,
    prompt_version: promptVersion ? toPromptVersionView(promptVersion) : null,
    status: record.status,
    error_type: record.error_type,
    error_message: record.error_message,
  };
}

/**
 * Checks what a log refers to before anything is written, and answers the prompt version it used: the
 * prompt (an unknown one is a 422) and the group (an unknown one is a 404), read side by side. Callers that
 * record several logs resolve every log first, so that a bad one refuses the whole call.
 */
export async function resolveLogReferences(
  workspaceId: number,
  body: LogRequestBody,
): Promise<VersionRecord | undefined> {
  const [promptVersion] = await Promise.all([
    namesPrompt(body) ? findLoggedPromptVersion(workspaceId, body) : undefined,
    body.group_id != null ? requireGroup(workspaceId, body.group_id) : undefined,
  ]);
  return promptVersion;
}

/**
 * Whether a log names a prompt (prompt_id or prompt_name): then `findLoggedPromptVersion` resolves the
 * version it used, and an unknown one is a 422. Callers that record several logs resolve every prompt
 * first, so that a bad one refuses the whole call before anything is written.
 */
export const namesPrompt = (body: LogRequestBody): boolean =>
  body.prompt_id != null || body.prompt_name != null;

/**
 * Fields of a log that no client body sets, only the server's own writers: track-request's provider
 * request, a replay's link to its original, its RUNNING status and the prompt it copied from the original.
 */
export type ServerFields = Partial<
  Pick<
    RequestLogRecord,
    | 'provider_request'
    | 'replay_of'
    | 'status'
    | 'prompt_id'
    | 'prompt_name'
    | 'prompt_version_number'
    | 'prompt_version_id'
  >
>;

/**
 * The record of a new log with id `id` (from `nextId('request_log')`); `putRequestLog` stores it. Its
 * usage in the stored meaning and its cost are computed here, so every way of logging prices alike
 * (docs/cost.md): no write, and a read of the workspace's price overrides only through their cache.
 */
export async function newRequestLog(
  id: number,
  workspaceId: number,
  body: LogRequestBody,
  raw: RawBody,
  promptVersion: VersionRecord | undefined,
  server: ServerFields = {},
): Promise<RequestLogRecord> {
  const usage = usageOfBody(body);
  const cost = await costOf(
    {
      model: body.model,
      provider: body.provider,
      usage,
      price: body.price,
      startedAt: body.request_start_time,
    },
    () => workspaceOverrides(workspaceId),
  );
  return {
    id,
    workspace_id: workspaceId,
    provider: body.provider,
    model: body.model,
    api_type: body.api_type ?? null,
    function_name: body.function_name,
    input: raw.input as JsonObject,
    output: raw.output as JsonObject,
    parameters: (raw.parameters as JsonObject | null) ?? {},
    tags: body.tags,
    metadata: body.metadata,
    prompt_id: promptVersion?.prompt_id ?? null,
    prompt_name: promptVersion?.prompt_name ?? null,
    prompt_version_number: promptVersion?.number ?? body.prompt_version_number ?? null,
    prompt_version_id: promptVersion?.id ?? null,
    prompt_input_variables: (raw.prompt_input_variables as JsonObject | null) ?? {},
    input_tokens: body.input_tokens,
    output_tokens: body.output_tokens,
    price: cost.total,
    usage,
    cost,
    score: body.score,
    scores: { default: body.score },
    status: body.status,
    error_type: body.error_type ?? null,
    error_message: body.error_message ?? null,
    request_start_time: body.request_start_time,
    request_end_time: body.request_end_time,
    created_at: Date.now(),
    group_id: body.group_id ?? null,
    extra: undefinedFields(raw),
    ...server,
  };
}

/** The totals with the subsets of `usage` (checked against them by the schema). */
function usageOfBody(body: LogRequestBody): Usage {
  const detail = body.usage;
  return {
    input_tokens: body.input_tokens,
    output_tokens: body.output_tokens,
    cache_read_tokens: detail?.cache_read_tokens ?? 0,
    cache_write_tokens: detail?.cache_write_tokens ?? 0,
    reasoning_tokens: detail?.reasoning_tokens ?? 0,
    ...(detail?.cache_write_1h_tokens ? { cache_write_1h_tokens: detail.cache_write_1h_tokens } : {}),
    ...(detail?.input_audio_tokens ? { input_audio_tokens: detail.input_audio_tokens } : {}),
    ...(detail?.output_audio_tokens ? { output_audio_tokens: detail.output_audio_tokens } : {}),
    ...(detail?.input_image_tokens ? { input_image_tokens: detail.input_image_tokens } : {}),
  };
}

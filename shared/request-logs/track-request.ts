import { AppError, clip, validationError } from '#shared/platform/errors.ts';
import { jsonObject } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { type LogRequestResult, logRequest, type RawBody } from './log-request.ts';
import { type LogRequestBody, logRequestBodySchema } from './log-request-schema.ts';
import { convertTrackedCall } from './providers/index.ts';
import type { Usage } from './record.ts';

/**
 * POST /track-request: what the PromptLayer SDK reports after it called a provider (its `run()` and its
 * OpenAI / Anthropic wrappers). The provider's request (`kwargs`) and response (`request_response`) are
 * turned into a request log (providers/) and stored by log-request's own code, so every rule of a log
 * (timestamps, tags, metadata, statuses, prompt and group references) is checked in one place, and the
 * write is log-request's: one PutItem.
 */

/** Fields copied as they are into the log-request body (checked there). */
const LOG_FIELDS = [
  'request_start_time',
  'request_end_time',
  'tags',
  'metadata',
  'prompt_id',
  'prompt_input_variables',
  'group_id',
  'status',
  'error_type',
  'score',
] as const;

/**
 * The SDK's body: its own fields, and the log fields it copies (validated as log-request validates them,
 * so that the OpenAPI document lists them, the request times required among them; the log keeps them as
 * sent). The rest of the log body is built from `kwargs` and `request_response`.
 */
export const trackRequestBodySchema = z.looseObject({
  ...(Object.fromEntries(LOG_FIELDS.map((name) => [name, logRequestBodySchema.shape[name]])) as Pick<
    typeof logRequestBodySchema.shape,
    (typeof LOG_FIELDS)[number]
  >),
  function_name: z.nullish(z.string()),
  provider_type: z.string().check(z.minLength(1)),
  args: z.nullish(z.array(z.unknown())),
  kwargs: z.nullish(jsonObject),
  request_response: z.unknown(),
  prompt_version: z.nullish(z.int().check(z.gt(0))),
  return_pl_id: z.nullish(z.boolean()),
  return_prompt_blueprint: z.nullish(z.boolean()),
  /** OpenTelemetry's invalid span id (all zeros), which the SDK sends when tracing is off, is no span. */
  span_id: z.pipe(
    z.nullish(z.string().check(z.maxLength(256))),
    z.transform((id) => (id && /^0+$/.test(id) ? null : id)),
  ),
});
export type TrackRequestBody = z.output<typeof trackRequestBodySchema>;

/**
 * Provider credentials the SDK's `run()` can leave in `kwargs` (a custom provider's `api_key` becomes
 * `apiKey`, which its Anthropic path never deletes; Bedrock reads AWS keys from there). Secrets: dropped
 * before the request is stored as the log's parameters or answered in `prompt_blueprint`.
 */
const CREDENTIAL_KWARGS = new Set([
  'apiKey',
  'api_key',
  'aws_access_key',
  'aws_secret_key',
  'aws_session_token',
]);

const withoutCredentials = (kwargs: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(kwargs).filter(([name]) => !CREDENTIAL_KWARGS.has(name)));

/** The error message a log keeps (log-request's bound): a provider's may be longer, and is cut rather than refused. */
const MAX_ERROR_MESSAGE = 1024;

export interface TrackRequestResult {
  success: true;
  request_id: number;
  prompt_blueprint: Record<string, unknown>;
}

export async function trackRequest(
  workspaceId: number,
  body: TrackRequestBody,
  raw: RawBody,
): Promise<TrackRequestResult> {
  const log = trackedLog(body, raw);
  let logged: LogRequestResult;
  try {
    logged = await logRequest(workspaceId, log.body, log.raw, { provider_request: log.providerRequest });
  } catch (error) {
    throw namedAsSent(error);
  }
  return { success: true, request_id: logged.id, prompt_blueprint: requestBlueprint(log.raw) };
}

/** A tracked call as a log-request body (validated) and the raw body it stores, and the request as sent. */
export interface TrackedLog {
  body: LogRequestBody;
  raw: RawBody;
  /** `kwargs` without credentials: the log's `provider_request`. */
  providerRequest: Record<string, unknown>;
}

/** Converts a tracked call into the log it is (providers/), checked as log-request checks a body; 422 if not. */
export function trackedLog(body: TrackRequestBody, raw: RawBody): TrackedLog {
  const kwargs = withoutCredentials(body.kwargs ?? {});
  const converted = convertTrackedCall({
    function_name: body.function_name ?? '',
    kwargs,
    request_response: body.request_response,
  });
  let candidate: RawBody = {
    provider: body.provider_type,
    model: converted.model ?? 'unknown',
    api_type: converted.api_type,
    function_name: body.function_name ?? '',
    input: converted.input,
    output: converted.output,
    parameters: converted.parameters,
    input_tokens: converted.input_tokens,
    output_tokens: converted.output_tokens,
    usage: usageDetail(converted.usage),
    prompt_version_number: body.prompt_version,
    ...Object.fromEntries(
      LOG_FIELDS.filter((name) => raw[name] !== undefined).map((name) => [name, raw[name]]),
    ),
    ...(typeof raw.error_message === 'string'
      ? { error_message: clip(raw.error_message, MAX_ERROR_MESSAGE) }
      : {}),
    // Kept as extra fields of the log: the span the call was made in, and a response no conversion read.
    ...(body.span_id != null ? { span_id: body.span_id } : {}),
    ...(converted.known ? {} : unconverted(kwargs, body.request_response)),
  };
  let parsed = logRequestBodySchema.safeParse(candidate);
  if (!parsed.success && parsed.error.issues.some((issue) => BLUEPRINTS.has(issue.path[0]))) {
    // A provider payload the conversion kept a block of that no blueprint allows: logged as an unknown
    // call rather than refused (the client's fields are still checked).
    candidate = { ...candidate, ...unconverted(kwargs, body.request_response) };
    parsed = logRequestBodySchema.safeParse(candidate);
  }
  if (!parsed.success) throw validationError(parsed.error, ['body']);
  return { body: parsed.data, raw: candidate, providerRequest: kwargs };
}

/** A log-request error about `prompt_version_number` names `prompt_version`, the field this body has. */
function namedAsSent(error: unknown): unknown {
  const renamed = (loc: (string | number)[]) =>
    loc[0] === 'body' && loc[1] === 'prompt_version_number'
      ? ['body', 'prompt_version', ...loc.slice(2)]
      : loc;
  if (!(error instanceof AppError) || !error.detail?.some((item) => item.loc !== renamed(item.loc)))
    return error;
  return new AppError(
    error.status,
    error.code,
    error.message.replace('body.prompt_version_number', 'body.prompt_version'),
    error.detail.map((item) => ({ ...item, loc: renamed(item.loc) })),
  );
}

/** The subsets of a conversion's usage, as a log body's `usage` carries them. */
const usageDetail = ({ input_tokens: _input, output_tokens: _output, ...subsets }: Usage) => subsets;

const BLUEPRINTS = new Set<PropertyKey | undefined>(['input', 'output']);

/** What a call of no known API logs: empty blueprints, the whole request, the raw response. */
const unconverted = (kwargs: Record<string, unknown>, response: unknown): RawBody => ({
  input: { type: 'chat', messages: [] },
  output: { type: 'chat', messages: [] },
  parameters: kwargs,
  request_response: response,
});

/**
 * The request as one prompt blueprint, as PromptLayer answers it: the conversation with the model's
 * answer as its last message, and the model. (`run()` hands it to the caller as `prompt_blueprint`.)
 */
function requestBlueprint(log: RawBody): Record<string, unknown> {
  const input = log.input as Record<string, unknown>;
  const output = log.output as Record<string, unknown>;
  const template =
    input.type === 'chat' && output.type === 'chat'
      ? { ...input, messages: [...(input.messages as unknown[]), ...(output.messages as unknown[])] }
      : output;
  return {
    prompt_template: template,
    metadata: { model: { provider: log.provider, name: log.model, parameters: log.parameters } },
    inference_client_name: null,
  };
}

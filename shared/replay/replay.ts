import { ENV } from '#shared/platform/config.ts';
import { notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { sendJob } from '#shared/platform/jobs.ts';
import { logger } from '#shared/platform/logger.ts';
import * as z from '#shared/platform/zod.ts';
import { getRawTemplate } from '#shared/prompts/read.ts';
import { type RenderedTemplateView, renderTemplateView } from '#shared/prompts/rendered.ts';
import { ProviderError } from '#shared/providers/errors.ts';
import { apiOf, callTimeoutMs, LLM_FUNCTION_NAMES, type LlmApi, llmPort } from '#shared/providers/port.ts';
import { type ProviderName, providerOf } from '#shared/providers/providers.ts';
import { newRequestLog, type RawBody, type ServerFields } from '#shared/request-logs/log-request.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { getRequestLog, putRequestLog, updateRequestLog } from '#shared/request-logs/repository.ts';
import { trackedLog, trackRequestBodySchema } from '#shared/request-logs/track-request.ts';
import { putReplayLink } from './links.ts';
import { replayRequest } from './request.ts';
import type { ReplayOverrides } from './schemas.ts';

/**
 * A replay: the original log's request sent again (request.ts) through the provider port with the
 * workspace's key or the deployment's, and the answer logged as a new log with `replay_of`, exactly as
 * a workflow node logs its call (track-request's conversion, PROVIDER_* error types). The original is
 * only read.
 *
 * The route waits for the provider up to REPLAY_SYNC_LIMIT_MS (25 s, under API Gateway's 29 s). A call
 * cut short by that limit is given up, and the replay goes on as a job: the new log is written RUNNING
 * (its request in `provider_request`), the job sends the request again and writes the outcome over it.
 * The provider may so see the request twice (the first one abandoned): docs/replay.md.
 *
 * DynamoDB calls of a replay that answers at once: the original (GetItem), the workspace's provider key
 * (GetItem), the link and the new log (two PutItems); ids come from a block reserved per container.
 */
export const REPLAY_QUEUE = { name: 'replay-jobs', maxReceiveCount: 3, timeoutSeconds: 180 } as const;

export const DEFAULT_REPLAY_SYNC_LIMIT_MS = 25_000;

export function replaySyncLimitMs(): number {
  const configured = Number(process.env[ENV.replaySyncLimitMs]);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_REPLAY_SYNC_LIMIT_MS;
}

/** What a replay sends and what its log carries besides the answer; a RUNNING log holds all of it. */
export interface ReplayPlan {
  workspaceId: number;
  provider: ProviderName;
  body: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  variables: Record<string, unknown>;
  /** The log's server fields: the original's id and the prompt version the request came from. */
  links: ServerFields;
}

/** What the provider call gave. */
type Outcome = { api: LlmApi; response: Record<string, unknown> } | { error: ProviderError };

export interface ReplayResult {
  record: RequestLogRecord;
  /** The provider call goes on as a job: the log is RUNNING. */
  running: boolean;
}

/** POST /api/public/v2/requests/{id}/replay. */
export async function replayRequestLog(
  workspaceId: number,
  requestId: number,
  overrides: ReplayOverrides,
): Promise<ReplayResult> {
  const original = await getRequestLog(workspaceId, requestId);
  if (!original) throw notFound(`Request ${requestId} not found`);
  const plan = await planReplay(original, overrides);
  const start = Date.now();
  const deadline = start + replaySyncLimitMs();
  // Whether the route's limit, not the provider timeout, ends the call: then a timeout goes on as a job.
  const cutBySyncLimit = callTimeoutMs(deadline, start) < callTimeoutMs(Number.POSITIVE_INFINITY, start);
  const outcome = await callProvider(plan, deadline);
  if ('error' in outcome && cutBySyncLimit && isNoAnswerInTime(outcome.error)) {
    return { record: await startReplayJob(plan, start), running: true };
  }
  return { record: await logReplay(plan, start, outcome), running: false };
}

/**
 * One replay to its end, however long the provider takes within `deadline` (a batch's replays); `gate`
 * bounds the provider call alone, so that writes overlap the next calls.
 */
export async function replayUntil(
  plan: ReplayPlan,
  deadline: number,
  gate: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
): Promise<RequestLogRecord> {
  const { start, outcome } = await gate(async () => ({
    start: Date.now(),
    outcome: await callProvider(plan, deadline),
  }));
  return logReplay(plan, start, outcome);
}

/** Writes a finished replay: its link, then its log. */
async function logReplay(plan: ReplayPlan, start: number, outcome: Outcome): Promise<RequestLogRecord> {
  const record = await replayLog(await nextId('request_log'), plan, start, Date.now(), outcome);
  await putReplayLink(record);
  await putRequestLog(record);
  return record;
}

/** The request and the new log's fields, from the original and the overrides; bad overrides are 422s. */
export async function planReplay(
  original: RequestLogRecord,
  overrides: ReplayOverrides,
): Promise<ReplayPlan> {
  const variables = overrides.input_variables ?? original.prompt_input_variables;
  const rendered = overrides.prompt ? await renderPrompt(original, overrides, variables) : undefined;
  const request = replayRequest(original, overrides, rendered);
  const conversationKept =
    overrides.messages == null && overrides.prompt_template == null && overrides.prompt == null;
  const links: ServerFields = { replay_of: original.id };
  if (rendered) {
    Object.assign(links, {
      prompt_id: rendered.id,
      prompt_name: rendered.prompt_name,
      prompt_version_number: rendered.version,
    });
  } else if (conversationKept && original.prompt_id != null) {
    Object.assign(links, {
      prompt_id: original.prompt_id,
      prompt_name: original.prompt_name,
      prompt_version_number: original.prompt_version_number,
      prompt_version_id: original.prompt_version_id ?? null,
    });
  }
  return {
    workspaceId: original.workspace_id,
    provider: request.provider,
    body: request.body,
    tags: overrides.tags ?? original.tags,
    metadata: overrides.metadata ?? original.metadata,
    variables,
    links,
  };
}

/** The prompt version of the override, rendered as the SDK's `templates.get` renders it. */
async function renderPrompt(
  original: RequestLogRecord,
  overrides: ReplayOverrides,
  variables: Record<string, unknown>,
): Promise<RenderedTemplateView> {
  const prompt = overrides.prompt!;
  const raw = await getRawTemplate(original.workspace_id, prompt.name, {
    version: prompt.version ?? undefined,
    label: prompt.label ?? undefined,
    resolveSnippets: true,
    includeLlmKwargs: false,
  });
  // A version without a model is sent to the original's model, unless the overrides name one.
  const ownModel = Boolean(raw.metadata?.model);
  const provider = overrides.provider ?? (ownModel ? undefined : providerOf(original.provider));
  const model = overrides.model ?? (ownModel ? undefined : original.model);
  return renderTemplateView(
    raw,
    { provider, model, model_parameter_overrides: overrides.parameters ?? undefined },
    variables,
  );
}

async function callProvider(plan: ReplayPlan, deadline: number): Promise<Outcome> {
  try {
    const result = await llmPort.complete(plan.workspaceId, {
      provider: plan.provider,
      body: plan.body,
      deadline,
    });
    return { api: result.api, response: result.response };
  } catch (error) {
    if (error instanceof ProviderError) return { error };
    throw error;
  }
}

/** A timeout with no answer at all (not a 408/504 the provider sent). */
const isNoAnswerInTime = (error: ProviderError) => error.type === 'PROVIDER_TIMEOUT' && error.status === null;

/**
 * The new log, converted from the provider's request and answer as /track-request converts a call
 * (a workflow node's log is made the same way), with the replay's links.
 */
export async function replayLog(
  id: number,
  plan: ReplayPlan,
  start: number,
  end: number,
  outcome: Outcome | null,
  status?: 'RUNNING',
): Promise<RequestLogRecord> {
  const error = outcome && 'error' in outcome ? outcome.error : undefined;
  const answer = outcome && 'response' in outcome ? outcome : undefined;
  const raw: RawBody = {
    function_name: LLM_FUNCTION_NAMES[answer?.api ?? apiOf(plan.provider, plan.body)],
    provider_type: plan.provider,
    kwargs: plan.body,
    request_response: answer?.response ?? null,
    request_start_time: new Date(start).toISOString(),
    request_end_time: new Date(Math.max(end, start)).toISOString(),
    tags: plan.tags,
    metadata: plan.metadata,
    prompt_input_variables: plan.variables,
    status: error ? 'ERROR' : 'SUCCESS',
    ...(error ? { error_type: error.type, error_message: error.message } : {}),
  };
  const log = trackedLog(trackRequestBodySchema.parse(raw), raw);
  return newRequestLog(id, plan.workspaceId, log.body, log.raw, undefined, {
    provider_request: log.providerRequest,
    ...plan.links,
    ...(status ? { status } : {}),
  });
}

// ----------------------------------------------------------------------------------------------- the job

export const replayJobMessageSchema = z.object({
  v: z.literal(1),
  type: z.literal('replay'),
  workspaceId: z.int().check(z.positive()),
  requestId: z.int().check(z.positive()),
});
export type ReplayJobMessage = z.infer<typeof replayJobMessageSchema>;

/** The RUNNING log, then its job; a job that cannot be sent leaves the log as an ERROR, not RUNNING. */
async function startReplayJob(plan: ReplayPlan, start: number): Promise<RequestLogRecord> {
  const record = await replayLog(await nextId('request_log'), plan, start, start, null, 'RUNNING');
  await putReplayLink(record);
  await putRequestLog(record);
  const message: ReplayJobMessage = {
    v: 1,
    type: 'replay',
    workspaceId: plan.workspaceId,
    requestId: record.id,
  };
  try {
    await sendJob(REPLAY_QUEUE.name, message);
  } catch (error) {
    await failRunningReplay(plan.workspaceId, record.id, 'the replay could not be queued');
    throw error;
  }
  return record;
}

/** What a RUNNING log holds is the plan of its replay. */
function planOf(record: RequestLogRecord): ReplayPlan | undefined {
  const provider = providerOf(record.provider);
  if (!provider || !record.provider_request) return undefined;
  return {
    workspaceId: record.workspace_id,
    provider,
    body: record.provider_request,
    tags: record.tags,
    metadata: record.metadata,
    variables: record.prompt_input_variables,
    links: {
      replay_of: record.replay_of ?? null,
      prompt_id: record.prompt_id,
      prompt_name: record.prompt_name,
      prompt_version_number: record.prompt_version_number,
      prompt_version_id: record.prompt_version_id ?? null,
    },
  };
}

/**
 * The job of a replay that outlived the route: sends the request again (bounded by the job's own
 * timeout) and writes the outcome over the RUNNING log. A redelivered message whose log has ended does
 * nothing; a log that ended meanwhile is never written over.
 */
export async function finishRunningReplay(message: ReplayJobMessage): Promise<void> {
  const running = await getRequestLog(message.workspaceId, message.requestId);
  if (running?.status !== 'RUNNING') return;
  const plan = planOf(running);
  if (!plan) {
    await failRunningReplay(message.workspaceId, running.id, 'the RUNNING log holds no request to send');
    return;
  }
  const start = Date.now();
  const outcome = await callProvider(plan, start + REPLAY_QUEUE.timeoutSeconds * 1000);
  const finished = {
    ...(await replayLog(running.id, plan, start, Date.now(), outcome)),
    created_at: running.created_at,
  };
  await updateRequestLog(message.workspaceId, running.id, (current) =>
    current.status === 'RUNNING' ? finished : current,
  );
}

/** Ends a RUNNING log as an ERROR (its job could not be sent, or failed on its last delivery). */
export async function failRunningReplay(
  workspaceId: number,
  requestId: number,
  reason: string,
): Promise<void> {
  try {
    await updateRequestLog(workspaceId, requestId, (current) =>
      current.status === 'RUNNING'
        ? { ...current, status: 'ERROR', error_type: 'UNKNOWN_ERROR', error_message: reason }
        : current,
    );
  } catch (error) {
    logger.error('A RUNNING replay could not be ended', { workspaceId, requestId, error: error as Error });
  }
}

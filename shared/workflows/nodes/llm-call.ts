import { logger } from '#shared/platform/logger.ts';
import { ProviderError } from '#shared/providers/errors.ts';
import { apiOf, LLM_FUNCTION_NAMES, type LlmApi } from '#shared/providers/port.ts';
import type { ProviderName } from '#shared/providers/providers.ts';
import type { RawBody } from '#shared/request-logs/log-request.ts';
import { trackRequest, trackRequestBodySchema } from '#shared/request-logs/track-request.ts';
import { type NodeContext, NodeFailure } from './types.ts';

/**
 * One LLM call of a node (PROMPT_TEMPLATE, LLM_ASSERTION): sent through the context's LLM port, then
 * recorded as a request log (success or failure), linked to the prompt version it rendered when there
 * is one. A provider's failure becomes the node's: `error_message` `PROVIDER_*: ...`, the provider's
 * answer as `raw_error_message`. Recording the log never fails the node.
 */
export interface NodeLlmCall {
  provider: ProviderName;
  /** The provider request (a template's `llm_kwargs`). */
  body: Record<string, unknown>;
  /** The prompt version the request was rendered from. */
  prompt?: { id: number; versionNumber: number };
  /** The variables it was rendered with. */
  variables?: Record<string, unknown>;
  /** Missing variables: the log is a WARNING (VARIABLE_MISSING_OR_EMPTY). */
  warning?: string | null;
}

export async function callLlm(context: NodeContext, call: NodeLlmCall): Promise<string> {
  const start = Date.now();
  try {
    const result = await context.ports.llm.complete(context.workspaceId, {
      provider: call.provider,
      body: call.body,
      deadline: context.deadline,
    });
    await recordCall(context, call, start, { api: result.api, response: result.response });
    return result.text;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await recordCall(context, call, start, { error });
    throw new NodeFailure(error.typedMessage, error.raw);
  }
}

const functionName = (provider: ProviderName, body: Record<string, unknown>, api?: LlmApi) =>
  LLM_FUNCTION_NAMES[api ?? apiOf(provider, body)];

/** The node's place in its run, as the log's metadata (string values). */
function originMetadata(context: NodeContext): Record<string, string> {
  const origin = context.origin ?? {};
  const metadata: Record<string, string> = {};
  if (origin.workflowId !== undefined) metadata.workflow_id = String(origin.workflowId);
  if (origin.workflowVersionNumber !== undefined)
    metadata.workflow_version_number = String(origin.workflowVersionNumber);
  if (origin.executionId !== undefined) metadata.workflow_version_execution_id = String(origin.executionId);
  if (origin.nodeName !== undefined) metadata.workflow_node_name = origin.nodeName;
  if (origin.reportId !== undefined) metadata.report_id = String(origin.reportId);
  if (origin.reportRunNumber !== undefined) metadata.report_run_number = String(origin.reportRunNumber);
  if (origin.columnName !== undefined) metadata.report_column_name = origin.columnName;
  return metadata;
}

async function recordCall(
  context: NodeContext,
  call: NodeLlmCall,
  start: number,
  outcome: { api?: LlmApi; response?: Record<string, unknown>; error?: ProviderError },
): Promise<void> {
  const { error } = outcome;
  const status = error ? 'ERROR' : call.warning ? 'WARNING' : 'SUCCESS';
  const raw: RawBody = {
    function_name: functionName(call.provider, call.body, outcome.api),
    provider_type: call.provider,
    kwargs: call.body,
    request_response: outcome.response ?? null,
    request_start_time: new Date(start).toISOString(),
    request_end_time: new Date(Math.max(Date.now(), start)).toISOString(),
    metadata: originMetadata(context),
    tags: [context.origin?.reportId !== undefined ? 'report' : 'workflow'],
    status,
    ...(error
      ? { error_type: error.type, error_message: error.message }
      : call.warning
        ? { error_type: 'VARIABLE_MISSING_OR_EMPTY', error_message: call.warning }
        : {}),
    ...(call.prompt ? { prompt_id: call.prompt.id, prompt_version: call.prompt.versionNumber } : {}),
    ...(call.variables ? { prompt_input_variables: call.variables } : {}),
  };
  try {
    const body = trackRequestBodySchema.parse(raw);
    const { request_id } = await trackRequest(context.workspaceId, body, raw);
    context.onRequestLog?.(request_id);
  } catch (failure) {
    logger.warn('A node could not record its LLM call as a request log', {
      workspaceId: context.workspaceId,
      node: context.origin?.nodeName,
      reason: failure instanceof Error ? failure.message.slice(0, 300) : 'unknown',
    });
  }
}

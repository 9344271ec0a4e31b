import { fitsAnswer } from '#shared/platform/answer-limit.ts';
import { toIso } from '#shared/platform/time.ts';
import { type RequestLogRecord, usageOf } from './record.ts';

/**
 * GET /api/public/v2/requests/{id}: the reference OpenAPI's RequestLogDetailResponse, plus everything
 * that was logged (blueprints, parameters, tags, metadata, scores, status fields).
 *
 * The input blueprint appears twice (`input` and the reference's `prompt_blueprint.prompt_template`). A
 * log of several MB would then not fit the answer budget (Lambda's 6 MB response), so for such a log the copy inside
 * `prompt_blueprint` is left out and `prompt_blueprint.prompt_template_in` names the field that has it.
 */
export function toRequestLogDetail(record: RequestLogRecord) {
  const detail = fullDetail(record);
  if (fitsAnswer(detail)) return detail;
  const { prompt_template: _duplicate, ...blueprint } = detail.prompt_blueprint;
  return { ...detail, prompt_blueprint: { ...blueprint, prompt_template_in: 'input' as const } };
}

function fullDetail(record: RequestLogRecord) {
  return {
    success: true as const,
    request_id: record.id,
    id: record.id,
    workspace_id: record.workspace_id,
    provider: record.provider,
    model: record.model,
    api_type: record.api_type,
    function_name: record.function_name,
    prompt_blueprint: {
      prompt_template: record.input,
      metadata: { model: { provider: record.provider, name: record.model, parameters: record.parameters } },
      inference_client_name: null,
    },
    input: record.input,
    output: record.output,
    parameters: record.parameters,
    tags: record.tags,
    metadata: record.metadata,
    prompt_id: record.prompt_id,
    prompt_name: record.prompt_name,
    prompt_version_number: record.prompt_version_number,
    prompt_input_variables: record.prompt_input_variables,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    tokens: record.input_tokens + record.output_tokens,
    price: record.price,
    usage: usageOf(record),
    cost: record.cost ?? null,
    score: record.score,
    scores: record.scores,
    status: record.status,
    error_type: record.error_type,
    error_message: record.error_message,
    request_start_time: toIso(record.request_start_time),
    request_end_time: toIso(record.request_end_time),
    latency_ms: record.request_end_time - record.request_start_time,
    group_id: record.group_id ?? null,
    replay_of: record.replay_of ?? null,
    // An SDK that sends its trace id as an extra field gets it back where the reference puts it.
    trace_id: typeof record.extra?.trace_id === 'string' ? record.extra.trace_id : null,
    // The tracing span the request was made in (track-request's span_id), kept as an extra field.
    span_id: typeof record.extra?.span_id === 'string' ? record.extra.span_id : null,
    created_at: toIso(record.created_at),
    extra: record.extra ?? {},
  };
}

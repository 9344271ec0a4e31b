/**
 * Which request log a span names. A span links to a log in one of two ways:
 * - it carries `log_request`, and POST /spans-bulk creates that log (see ingest.ts);
 * - its attributes name the id of an existing log: the first of REQUEST_LOG_ID_ATTRIBUTES that holds an
 *   id, else `function_output` when it is a JSON object with a `request_id` (what the SDK's `run()` and
 *   `wrapWithSpan` record: run() returns `{request_id, raw_response, prompt_blueprint}`).
 * An id is a positive integer or a string of digits. The caller keeps it only if the log exists in the
 * span's workspace.
 */
export const REQUEST_LOG_ID_ATTRIBUTES = ['promptlayer.request_id', 'request_id', 'pl_request_id'] as const;

/** The attribute the SDK fills with a wrapped function's result, as JSON. */
export const FUNCTION_OUTPUT_ATTRIBUTE = 'function_output';

export function asRequestLogId(value: unknown): number | undefined {
  const id =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,16}$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

export function requestLogIdOf(attributes: Record<string, unknown>): number | undefined {
  for (const name of REQUEST_LOG_ID_ATTRIBUTES) {
    const id = asRequestLogId(attributes[name]);
    if (id !== undefined) return id;
  }
  const output = attributes[FUNCTION_OUTPUT_ATTRIBUTE];
  if (typeof output !== 'string' || !output.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(output);
    return asRequestLogId((parsed as { request_id?: unknown } | null)?.request_id);
  } catch {
    return undefined;
  }
}

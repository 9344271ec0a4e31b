import { isJsonObject } from '#shared/platform/json.ts';
import type { OtlpSpan } from '../spans.ts';
import { asCost, asCount, asObject, asString, type Convention, parseJson, type Rule } from './mapper.ts';
import { chatBlueprint, messagesOf } from './messages.ts';

/**
 * Langfuse's OpenTelemetry attributes (`@langfuse/otel` and the Langfuse SDKs): an observation of type
 * `generation` is a model call; input and output are JSON (messages, or anything); usage and cost are
 * JSON objects (`usage_details`: `input` excludes the cached tokens Langfuse lists beside it, so they are
 * added back to make the total; `cost_details.total` is the client's cost).
 */

const input = (value: unknown) => chatBlueprint(messagesOf(parseJson(value)));
const output = (value: unknown) => {
  const parsed = parseJson(value);
  // An OpenAI completion, or a bare assistant message or text.
  const choice = isJsonObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  const message = isJsonObject(choice) ? choice.message : parsed;
  return chatBlueprint(messagesOf(message, 'assistant'));
};

const CACHED_INPUT_KEYS = ['input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read'];
const CACHE_WRITE_KEYS = ['input_cache_creation', 'cache_creation_input_tokens'];
const sum = (object: Record<string, unknown>, keys: string[]) =>
  keys.reduce((total, key) => total + (asCount(object[key]) ?? 0), 0);

const usage = (key: 'input' | 'output' | 'cache_read' | 'cache_write' | 'reasoning') => (value: unknown) => {
  const details = asObject(value);
  if (!details) return undefined;
  switch (key) {
    case 'input': {
      const base = asCount(details.input);
      return base === undefined
        ? undefined
        : base + sum(details, CACHED_INPUT_KEYS) + sum(details, CACHE_WRITE_KEYS);
    }
    case 'output':
      return asCount(details.output);
    case 'cache_read':
      return sum(details, CACHED_INPUT_KEYS);
    case 'cache_write':
      return sum(details, CACHE_WRITE_KEYS);
    case 'reasoning':
      return asCount(details.output_reasoning_tokens ?? details.output_reasoning);
  }
};

const LF = 'langfuse.observation.';

export const LANGFUSE_RULES: readonly Rule[] = [
  { attribute: `${LF}model.name`, field: 'model', read: asString },
  { attribute: `${LF}input`, field: 'input', read: input },
  { attribute: `${LF}output`, field: 'output', read: output },
  { attribute: `${LF}model.parameters`, field: 'parameters', read: asObject },
  { attribute: `${LF}usage_details`, field: 'usage.input_tokens', read: usage('input') },
  { attribute: `${LF}usage_details`, field: 'usage.output_tokens', read: usage('output') },
  { attribute: `${LF}usage_details`, field: 'usage.cache_read_tokens', read: usage('cache_read') },
  { attribute: `${LF}usage_details`, field: 'usage.cache_write_tokens', read: usage('cache_write') },
  { attribute: `${LF}usage_details`, field: 'usage.reasoning_tokens', read: usage('reasoning') },
  { attribute: `${LF}cost_details`, field: 'cost', read: (value) => asCost(asObject(value)?.total) },
  { attribute: `${LF}status_message`, field: 'error_message', read: asString },
  {
    attribute: `${LF}level`,
    field: 'status',
    read: (value) => (value === 'ERROR' ? 'ERROR' : value === 'WARNING' ? 'WARNING' : undefined),
  },
  { attribute: `${LF}prompt.name`, field: 'prompt.name', read: asString },
  { attribute: `${LF}prompt.version`, field: 'prompt.version', read: asCount },
  { attribute: 'langfuse.trace.name', field: 'metadata.trace_name', read: asString },
  {
    attribute: 'langfuse.trace.tags',
    field: 'tags',
    read: (value) => (Array.isArray(value) ? value.map(String) : undefined),
  },
  { attribute: 'langfuse.user.id', field: 'metadata.user.id', read: asString },
  { attribute: 'langfuse.session.id', field: 'metadata.session.id', read: asString },
  { attribute: 'langfuse.release', field: 'metadata.release', read: asString },
  { attribute: 'langfuse.environment', field: 'metadata.environment', read: asString },
];

const typeOf = (span: OtlpSpan) => asString(span.attributes[`${LF}type`]);

export const langfuse: Convention = {
  name: 'langfuse',
  claims: (span) => typeOf(span) !== undefined,
  modelCall(span) {
    const type = typeOf(span);
    return type === 'generation' ? true : `langfuse.observation.type is ${type}, not generation`;
  },
  rules: LANGFUSE_RULES,
};

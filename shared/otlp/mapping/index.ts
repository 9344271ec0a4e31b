import type { JsonObject } from '#shared/platform/json.ts';
import type { Usage } from '#shared/request-logs/record.ts';
import type { OtlpSpan } from '../spans.ts';
import { genAi } from './gen-ai.ts';
import { langfuse } from './langfuse.ts';
import { asString, type Convention, type FieldSource, Mapper } from './mapper.ts';
import { chatBlueprint } from './messages.ts';
import { openInference } from './openinference.ts';
import { METADATA_PREFIXES, promptLayer } from './promptlayer.ts';
import { vercelAi } from './vercel-ai.ts';

/**
 * Which convention a span is written in, whether it is a model call, and the request log it becomes.
 * The first convention that claims a span decides whether it is a model call (Langfuse's observation
 * type, the AI SDK's operation id, OpenInference's span kind, then GenAI's operation name); the other
 * conventions present fill the fields it left empty (an AI SDK `.doGenerate` span carries `gen_ai.*`
 * too), then the promptlayer.* attributes. Every field remembers the attributes it came from.
 */
export const CONVENTIONS: readonly Convention[] = [langfuse, vercelAi, openInference, genAi];

/** A model call as the ingest writes it: the fields of a request log. */
export interface ModelCall {
  provider: string;
  model: string;
  api_type: string | null;
  input: JsonObject;
  output: JsonObject;
  parameters: JsonObject;
  usage: Usage;
  /** The span's own cost in USD (`cost_source: client`), when it carries one. */
  cost: number | undefined;
  tags: string[];
  metadata: Record<string, string>;
  prompt: { name: string; version?: number; label?: string } | undefined;
  status: 'SUCCESS' | 'WARNING' | 'ERROR';
  error_message: string | null;
}

export interface SpanMapping {
  /** The convention that claimed the span (null: none did, it is a plain span). */
  convention: string | null;
  model_call: boolean;
  /** Why a span is not a model call. */
  reason: string | null;
  fields: FieldSource[];
  /** Attributes no field was taken from: kept only as the span's raw attributes. */
  raw_attributes: string[];
  /** Corrections made to what the span said (e.g. cached tokens above the input total). */
  notes: string[];
  call?: ModelCall;
}

export function mapSpan(span: OtlpSpan): SpanMapping {
  const primary = CONVENTIONS.find((convention) => convention.claims(span));
  const attributeNames = Object.keys(span.attributes);
  if (!primary) {
    return {
      convention: null,
      model_call: false,
      reason: 'no known convention',
      fields: [],
      raw_attributes: attributeNames,
      notes: [],
    };
  }
  const decision = primary.modelCall(span);
  if (decision !== true) {
    return {
      convention: primary.name,
      model_call: false,
      reason: decision,
      fields: [],
      raw_attributes: attributeNames,
      notes: [],
    };
  }
  const mapper = new Mapper(span);
  mapper.apply(primary);
  for (const other of CONVENTIONS) if (other !== primary && other.claims(span)) mapper.apply(other);
  mapper.apply(promptLayer);
  for (const prefix of METADATA_PREFIXES) mapper.metadataFrom(prefix, prefix.split('.')[0]!);
  const notes: string[] = [];
  const call = modelCall(span, mapper, notes);
  return {
    convention: primary.name,
    model_call: true,
    reason: null,
    fields: mapper.sources,
    raw_attributes: attributeNames.filter((name) => !mapper.used.has(name)),
    notes,
    call,
  };
}

/** Resource attributes that tag every log of the resource (as `name:value`). */
const TAG_ATTRIBUTES = ['service.name', 'deployment.environment', 'deployment.environment.name'];

function modelCall(span: OtlpSpan, mapper: Mapper, notes: string[]): ModelCall {
  const metadata: Record<string, string> = {};
  for (const [field, value] of mapper.values)
    if (field.startsWith('metadata.')) metadata[field.slice('metadata.'.length)] = String(value);

  const tags = [...(mapper.get<string[]>('tags') ?? [])];
  for (const name of TAG_ATTRIBUTES) {
    const value = asString(span.resource[name]);
    if (value === undefined) continue;
    tags.push(`${name}:${value}`);
    mapper.sources.push({ field: 'tags', from: [`resource ${name}`], convention: 'resource' });
  }

  const parameters: JsonObject = { ...(mapper.get<JsonObject>('parameters') ?? {}) };
  for (const [field, value] of mapper.values)
    if (field.startsWith('parameters.')) parameters[field.slice('parameters.'.length)] = value;

  const input = mapper.get<JsonObject>('input') ?? chatBlueprint([]);
  const tools = mapper.get<JsonObject[]>('input.tools');
  const failed = span.status.code === 2;
  const promptName = mapper.get<string>('prompt.name');
  return {
    provider: mapper.get<string>('provider') ?? 'unknown',
    model: mapper.get<string>('model') ?? 'unknown',
    api_type: mapper.get<string>('api_type') ?? null,
    input: tools && tools.length > 0 ? { ...input, tools } : input,
    output: mapper.get<JsonObject>('output') ?? chatBlueprint([]),
    parameters,
    usage: usageOf(mapper, notes),
    cost: mapper.get<number>('cost'),
    tags,
    metadata,
    prompt: promptName
      ? {
          name: promptName,
          version: mapper.get<number>('prompt.version'),
          label: mapper.get<string>('prompt.label'),
        }
      : undefined,
    status: failed ? 'ERROR' : (mapper.get<'WARNING' | 'ERROR'>('status') ?? 'SUCCESS'),
    error_message: failed
      ? span.status.message || 'the span ended with status ERROR'
      : (mapper.get<'WARNING' | 'ERROR'>('status') && mapper.get<string>('error_message')) || null,
  };
}

/**
 * Usage in one meaning (input includes cache reads and writes, output includes reasoning). A subset
 * larger than its total cannot be right: the total is raised to it rather than costed twice, with a note.
 */
function usageOf(mapper: Mapper, notes: string[]): Usage {
  const count = (field: string) => mapper.get<number>(`usage.${field}`) ?? 0;
  const usage: Usage = {
    input_tokens: count('input_tokens'),
    output_tokens: count('output_tokens'),
    cache_read_tokens: count('cache_read_tokens'),
    cache_write_tokens: count('cache_write_tokens'),
    reasoning_tokens: count('reasoning_tokens'),
  };
  const cached = usage.cache_read_tokens + usage.cache_write_tokens;
  if (cached > usage.input_tokens) {
    notes.push(
      `cached input tokens (${cached}) exceed the input total (${usage.input_tokens}): the total is taken as ${cached}`,
    );
    usage.input_tokens = cached;
  }
  if (usage.reasoning_tokens > usage.output_tokens) {
    notes.push(
      `reasoning tokens (${usage.reasoning_tokens}) exceed the output total (${usage.output_tokens}): the total is taken as ${usage.reasoning_tokens}`,
    );
    usage.output_tokens = usage.reasoning_tokens;
  }
  return usage;
}

import type { Blueprint, ContentBlock, Message, TemplateVersion } from '../prompts/api.ts';

/**
 * What the playground edits: the messages of a chat template (role and text; a message's other blocks
 * and fields ride along untouched), and per column a provider and a model, plus the shared parameters.
 */
export interface DraftMessage {
  /** Stable key for the list while messages are added, removed and moved. */
  key: number;
  role: string;
  text: string;
  /** Blocks that are not text (an image, a tool call) and the message's other fields, sent as they were. */
  otherBlocks: ContentBlock[];
  extra: Record<string, unknown>;
}

export interface Target {
  provider: string;
  model: string;
}

/** The providers the replay endpoint calls (docs/replay.md). */
export const PROVIDERS = ['openai', 'anthropic'] as const;
export const ROLES = ['system', 'developer', 'user', 'assistant'] as const;

/** The parameters the form offers, with the bounds the replay endpoint checks. */
export const PARAMETERS = [
  { name: 'temperature', label: 'Temperature', min: 0, max: 2, step: 0.1 },
  { name: 'max_tokens', label: 'Max tokens', min: 1, max: 32_768, step: 1 },
  { name: 'top_p', label: 'Top p', min: 0, max: 1, step: 0.05 },
] as const;
export type ParameterName = (typeof PARAMETERS)[number]['name'];
/** The form's values as typed ('' = not set: the source's value stays). */
export type ParameterValues = Record<ParameterName, string>;

let nextKey = 1;

export function draftMessages(template: Blueprint): DraftMessage[] {
  if (template.type !== 'chat') return [];
  return (template.messages ?? []).map((message) => {
    const { role, content, ...extra } = message;
    const blocks = content ?? [];
    return {
      key: nextKey++,
      role,
      text: blocks
        .filter((block) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join('\n'),
      otherBlocks: blocks.filter((block) => block.type !== 'text'),
      extra,
    };
  });
}

export const newMessage = (role = 'user'): DraftMessage => ({
  key: nextKey++,
  role,
  text: '',
  otherBlocks: [],
  extra: {},
});

export function blueprintMessages(messages: DraftMessage[]): Message[] {
  return messages.map((message) => ({
    ...message.extra,
    role: message.role,
    content: [...(message.text ? [{ type: 'text', text: message.text }] : []), ...message.otherBlocks],
  }));
}

/** The source's template with the edited messages (its other settings kept). */
export const editedBlueprint = (source: Blueprint, messages: DraftMessage[]): Blueprint => ({
  ...source,
  type: 'chat',
  messages: blueprintMessages(messages),
});

export function parameterValues(parameters: Record<string, unknown> | null | undefined): ParameterValues {
  const value = (name: ParameterName) => {
    const found = parameters?.[name];
    return typeof found === 'number' ? String(found) : '';
  };
  return { temperature: value('temperature'), max_tokens: value('max_tokens'), top_p: value('top_p') };
}

/** The parameters set in the form, as numbers (the API checks their bounds and answers 422 past them). */
export function parameterOverrides(values: ParameterValues): Record<string, number> {
  const overrides: Record<string, number> = {};
  for (const { name } of PARAMETERS) {
    const text = values[name].trim();
    if (text !== '' && Number.isFinite(Number(text))) overrides[name] = Number(text);
  }
  return overrides;
}

/** Where a run goes: a request log replayed, with the overrides of its body. */
export interface RunPlan {
  requestId: number;
  body: Record<string, unknown>;
}

/**
 * The replay body of one column. From a request: the log replayed with the edited `messages` (only when
 * edited, so an unedited run is sent as the provider saw it). From a prompt version: a log of it carries
 * the run; the version itself (`prompt`, rendered with the log's input variables) while unedited, the
 * edited template (`prompt_template`, sent as written: its variables are not filled in) once edited.
 */
export function replayBody(
  source: { kind: 'request' } | { kind: 'prompt'; name: string; version: number },
  target: Target,
  parameters: ParameterValues,
  edited: Blueprint,
  messagesChanged: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    provider: target.provider,
    model: target.model.trim(),
    parameters: parameterOverrides(parameters),
  };
  if (source.kind === 'request') {
    if (messagesChanged) body.messages = edited.type === 'chat' ? edited.messages : undefined;
  } else if (messagesChanged) body.prompt_template = edited;
  else body.prompt = { name: source.name, version: source.version };
  return body;
}

/** The edited template as a version, for the diff against the source version (the Prompts screen's). */
export function asVersion(
  base: TemplateVersion | null,
  template: Blueprint,
  target: Target,
  parameters: ParameterValues,
): TemplateVersion {
  const model = base?.metadata?.model;
  return {
    id: base?.id ?? 0,
    prompt_name: base?.prompt_name ?? '',
    version: (base?.version ?? 0) + 1,
    prompt_template: template,
    metadata: {
      ...base?.metadata,
      model: {
        ...model,
        provider: target.provider,
        name: target.model.trim(),
        parameters: { ...model?.parameters, ...parameterOverrides(parameters) },
      },
    },
    commit_message: null,
    tags: [],
    created_at: '',
  };
}

/** A version with nothing in it: what a template published for the first time is diffed against. */
export const EMPTY_VERSION: TemplateVersion = {
  id: 0,
  prompt_name: '',
  version: 0,
  prompt_template: { type: 'chat', messages: [] },
  metadata: null,
  commit_message: null,
  tags: [],
  created_at: '',
};

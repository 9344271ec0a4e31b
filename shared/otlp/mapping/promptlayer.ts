import { asCount, asString, type Convention, type Rule } from './mapper.ts';

/**
 * What PromptLayer's own OpenTelemetry guide adds to any model-call span, whatever its convention:
 * `promptlayer.prompt.name` / `.version` / `.label` link the request log to a prompt version, and
 * `promptlayer.metadata.<key>`, `user.id`, `session.id` and `gen_ai.conversation.id` become metadata.
 * It never makes a span a model call itself.
 */
export const PROMPTLAYER_RULES: readonly Rule[] = [
  { attribute: 'promptlayer.prompt.name', field: 'prompt.name', read: asString },
  { attribute: 'promptlayer.prompt.version', field: 'prompt.version', read: asCount },
  { attribute: 'promptlayer.prompt.label', field: 'prompt.label', read: asString },
  { attribute: 'user.id', field: 'metadata.user.id', read: asString },
  { attribute: 'session.id', field: 'metadata.session.id', read: asString },
  { attribute: 'gen_ai.conversation.id', field: 'metadata.gen_ai.conversation.id', read: asString },
];

export const METADATA_PREFIXES = [
  'promptlayer.metadata.',
  'ai.telemetry.metadata.',
  'langfuse.observation.metadata.',
  'langfuse.trace.metadata.',
];

export const promptLayer: Convention = {
  name: 'promptlayer',
  claims: () => true,
  modelCall: () => 'promptlayer.* attributes only add to a model call',
  rules: PROMPTLAYER_RULES,
};

/**
 * The stored shapes `llm_kwargs` read (loose on purpose: zod-inferred blueprints and raw JSON both fit),
 * and the error a blueprint that cannot be rendered raises.
 */
import type { JsonObject as Json } from '#shared/platform/json.ts';

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Json;
  strict?: boolean;
}

export interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
  [key: string]: unknown;
}

export interface ChatMessage {
  role: string;
  content?: ContentBlock[] | null;
  name?: string | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string;
  function_call?: { name: string; arguments: string } | null;
  [key: string]: unknown;
}

/** A function tool (`{type:'function', function}`) or a provider built-in (`{type:'web_search', config}`). */
export interface Tool {
  type: string;
  function?: FunctionDefinition;
  name?: string;
  provider?: string;
  config?: Json;
  [key: string]: unknown;
}

export type ToolChoice =
  | string
  | { type?: string; function?: { name: string }; name?: string; [key: string]: unknown };

interface BlueprintCommon {
  input_variables?: string[];
  template_format?: string;
  [key: string]: unknown;
}

export interface ChatBlueprint extends BlueprintCommon {
  type: 'chat';
  messages: ChatMessage[];
  tools?: Tool[] | null;
  tool_choice?: ToolChoice | null;
  functions?: FunctionDefinition[] | null;
  function_call?: ToolChoice | null;
}

export interface CompletionBlueprint extends BlueprintCommon {
  type: 'completion';
  content: ContentBlock[];
}

/** PromptLayer's Prompt Blueprint. */
export type PromptBlueprint = ChatBlueprint | CompletionBlueprint;

/** `metadata.model` of a prompt version. */
export interface ModelMetadata {
  provider?: string | null;
  name?: string | null;
  parameters?: Json | null;
  api_type?: string | null;
  base_model?: string | null;
  display_params?: Json | null;
  model_config_display_name?: string | null;
  [key: string]: unknown;
}

/** A blueprint and model that cannot be turned into a provider request; `renderLlmKwargs` makes it a 422. */
export class LlmKwargsError extends Error {
  override name = 'LlmKwargsError';
}

export const unrenderable = (message: string) => new LlmKwargsError(message);

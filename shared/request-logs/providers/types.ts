import type { Usage } from '../record.ts';

/** What a provider conversion makes of one tracked request: the request log's provider-specific fields. */
export interface Conversion {
  /** The model, from the response (the exact version) or else the request. */
  model: string | undefined;
  api_type: string | null;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  /** Totals in the stored meaning (`usage.input_tokens`, `usage.output_tokens`). */
  input_tokens: number;
  output_tokens: number;
  /** The call's usage in the stored meaning (providers/usage.ts). */
  usage: Usage;
  /** The request's arguments without the conversation (which is in `input`). */
  parameters: Record<string, unknown>;
}

/** A conversion's token fields from its usage. */
export const tokenFields = (usage: Usage) => ({
  input_tokens: usage.input_tokens,
  output_tokens: usage.output_tokens,
  usage,
});

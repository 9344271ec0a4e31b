/** What a provider conversion makes of one tracked request: the request log's provider-specific fields. */
export interface Conversion {
  /** The model, from the response (the exact version) or else the request. */
  model: string | undefined;
  api_type: string | null;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  input_tokens: number;
  output_tokens: number;
  /** The request's arguments without the conversation (which is in `input`). */
  parameters: Record<string, unknown>;
}

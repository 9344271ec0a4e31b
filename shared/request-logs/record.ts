/** A stored request log as the domain sees it (field names follow the public API). Times are epoch ms. */
export interface RequestLogRecord {
  id: number;
  workspace_id: number;
  provider: string;
  model: string;
  api_type: string | null;
  function_name: string;
  input: Record<string, unknown>; // Prompt Blueprint as sent: {type:'chat', messages:[{role, content:[{type:'text', text}...], tool_calls?...}]} or {type:'completion', content:[...]}
  output: Record<string, unknown>; // same shape
  parameters: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  prompt_id: number | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
  /** The template version the request used, resolved when the log named a prompt. */
  prompt_version_id?: number | null;
  prompt_input_variables: Record<string, unknown>;
  input_tokens: number;
  output_tokens: number;
  price: number;
  score: number;
  scores: Record<string, number>;
  status: 'SUCCESS' | 'WARNING' | 'ERROR';
  error_type: string | null;
  error_message: string | null;
  request_start_time: number;
  request_end_time: number;
  created_at: number;
  /** The group the log is attached to (groups.ts); absent in logs stored before groups existed. */
  group_id?: number | null;
  /** Top-level fields of the request that the API does not define, kept as sent (e.g. an SDK's trace_id). */
  extra?: Record<string, unknown>;
}

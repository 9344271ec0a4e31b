import type { CostBreakdown, Usage } from '#shared/costs/pricing.ts';

export type { CostBreakdown, CostSource, Usage } from '#shared/costs/pricing.ts';

/**
 * A log's status. RUNNING is never sent by a client: it is a replay whose provider call outlived the
 * synchronous answer and continues as a job (shared/replay/); the job sets the final status.
 */
export const LOG_STATUSES = ['SUCCESS', 'WARNING', 'ERROR', 'RUNNING'] as const;
export type RequestLogStatus = (typeof LOG_STATUSES)[number];

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
  /** The cost in USD: `cost.total` when the log has a cost breakdown (PromptLayer's field name). */
  price: number;
  /** Token usage in one meaning (DESIGN.md 13, docs/cost.md); absent in logs stored before it existed. */
  usage?: Usage;
  /** How `price` was arrived at; absent in logs stored before cost existed. */
  cost?: CostBreakdown;
  score: number;
  scores: Record<string, number>;
  status: RequestLogStatus;
  error_type: string | null;
  error_message: string | null;
  request_start_time: number;
  request_end_time: number;
  created_at: number;
  /** The group the log is attached to (groups.ts); absent in logs stored before groups existed. */
  group_id?: number | null;
  /**
   * The provider request as the client sent it (track-request's `kwargs`, credentials removed): what a
   * replay sends again. Absent on /log-request logs, whose request a replay rebuilds from the blueprint.
   */
  provider_request?: Record<string, unknown>;
  /** The log this one is a replay of (shared/replay/); absent or null for any other log. */
  replay_of?: number | null;
  /** Top-level fields of the request that the API does not define, kept as sent (e.g. an SDK's trace_id). */
  extra?: Record<string, unknown>;
}

/** A log's usage: as stored, or its token totals for a log stored before usage existed. */
export const usageOf = (record: RequestLogRecord): Usage =>
  record.usage ?? {
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };

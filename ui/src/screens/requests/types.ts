/** The shapes of the request-log API this screen reads (docs/openapi.json: RequestLogSearchResult, RequestLogDetail). */

export type LogStatus = 'SUCCESS' | 'WARNING' | 'ERROR' | 'RUNNING';

export interface CostBreakdown {
  total: number;
  input: number;
  cached_input: number;
  cache_write: number;
  output: number;
  reasoning: number;
  source: string;
  priced_as: string | null;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  [subset: string]: number;
}

export interface LogRow {
  id: number;
  engine: string;
  provider_type: string;
  input_tokens: number;
  output_tokens: number;
  price: number;
  cost: CostBreakdown | null;
  request_start_time: string;
  latency: number;
  tags_array: string[];
  score?: number;
  prompt_name: string | null;
  prompt_id: number | null;
  prompt_version_number: number | null;
  status: LogStatus;
  error_type: string | null;
}

export interface SearchAnswer {
  items: LogRow[];
  page: number;
  has_next: boolean;
  has_prev: boolean;
  next_cursor: string | null;
  incomplete_results: boolean;
}

export interface ContentBlock {
  type: string;
  text?: string;
  [field: string]: unknown;
}

export interface Message {
  role: string;
  content?: ContentBlock[] | null;
  tool_calls?: { id?: string; type?: string; function?: { name?: string; arguments?: string } }[] | null;
  tool_call_id?: string | null;
  name?: string | null;
  [field: string]: unknown;
}

export interface Blueprint {
  type: 'chat' | 'completion';
  messages?: Message[];
  content?: ContentBlock[];
  [field: string]: unknown;
}

export interface LogDetail {
  id: number;
  provider: string;
  model: string;
  input: Blueprint;
  output: Blueprint;
  parameters: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  prompt_id: number | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
  prompt_input_variables: Record<string, unknown>;
  input_tokens: number;
  output_tokens: number;
  price: number;
  usage?: Usage;
  cost?: CostBreakdown | null;
  scores: Record<string, number>;
  status: LogStatus;
  error_type: string | null;
  error_message: string | null;
  request_start_time: string;
  request_end_time: string;
  latency_ms: number;
  replay_of?: number | null;
  trace_id?: string | null;
  group_id?: number | null;
}

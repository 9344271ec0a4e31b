import type { outboundRequest } from '#shared/platform/outbound-http.ts';
import type * as z from '#shared/platform/zod.ts';
import type { LlmPort } from '#shared/providers/port.ts';
import type { SandboxPort } from '#shared/sandbox/sandbox.ts';

/**
 * Node executors: one file per node type, each a pure `(configuration, context) -> value` over the
 * ports below, so that the workflow engine and report columns run the same code and tests can give
 * them fakes. An executor answers the node's value (any JSON value) or throws a NodeFailure (the node is
 * FAILED with that message); any other error is treated as internal by the caller (retried, then FAILED).
 */
export interface NodePorts {
  sandbox: SandboxPort;
  llm: LlmPort;
  /** The guarded outbound client (SSRF-checked, no redirects, bounded). */
  http: { request: typeof outboundRequest };
  /** The workspace's environment variables, opened (CODE_EXECUTION's `process.env`). */
  env: { workspaceEnvironment(workspaceId: number): Promise<Record<string, string>> };
}

export interface NodeContext {
  workspaceId: number;
  /**
   * Values a node may read by name: the run's input variables (a report's dataset columns), then the
   * outputs of the nodes it depends on; a SKIPPED dependency reads as null.
   */
  inputs: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds after which the node must give up. */
  deadline: number;
  ports: NodePorts;
  /** Told the id of each request log the node records (a report cell keeps it: its `request_log_id`). */
  onRequestLog?: (requestLogId: number) => void;
  /** Where the node runs, for logs and for request logs a node writes. */
  origin?: {
    workflowId?: number;
    workflowVersionNumber?: number;
    executionId?: number;
    nodeName?: string;
    /** A report column's cell: the report, its run and the column. */
    reportId?: number;
    reportRunNumber?: number;
    columnName?: string;
  };
}

export interface NodeExecutor<C = unknown> {
  /** The configuration's schema, checked when a workflow version is created and again before a run. */
  config: z.ZodMiniType<C>;
  execute(config: C, context: NodeContext): Promise<unknown>;
}

/** A node that ran and failed: its `error_message` (and `raw_error_message`) as the results show them. */
export class NodeFailure extends Error {
  readonly raw: string | null;

  constructor(message: string, raw: string | null = null) {
    super(message);
    this.raw = raw;
    this.name = 'NodeFailure';
  }
}

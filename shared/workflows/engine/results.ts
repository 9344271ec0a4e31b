import { ANSWER_BUDGET_BYTES, valuesToOmit } from '#shared/platform/answer-limit.ts';
import { notFound } from '#shared/platform/errors.ts';
import * as z from '#shared/platform/zod.ts';
import { NODE_STATUSES, type NodeStatus } from './readiness.ts';
import { type NodeItem, nodeValue, readExecution } from './store.ts';

/**
 * The answer of `GET /workflow-version-execution-results` (and the callback's final output): an object
 * keyed by node name, each `{status, value, error_message, raw_error_message, is_output_node}`. 202
 * with every node while any is QUEUED or RUNNING; 200 once all are final, with every node when
 * `return_all_outputs`, else only the main output node: the first output node to reach SUCCESS (or every
 * output node when none succeeded).
 */
export interface NodeResult {
  status: NodeStatus;
  value: unknown;
  error_message: string | null;
  raw_error_message: string | null;
  is_output_node: boolean;
  /** Set when the value was left out of an answer that would have passed the answer budget: its size. */
  value_omitted_bytes?: number;
}

/** The answer within the answer budget: values left out largest first (`value: null`) until it fits. */
export function withinAnswerLimit(
  body: Record<string, NodeResult>,
  limit = ANSWER_BUDGET_BYTES,
): Record<string, NodeResult> {
  const entries = Object.entries(body);
  const omitted = valuesToOmit(
    body,
    entries.map(([, result]) => result.value),
    limit,
  );
  if (omitted.size === 0) return body;
  // Rebuilt with fromEntries: a node may be called `__proto__`.
  return Object.fromEntries(
    entries.map(([name, result], i) => {
      const bytes = omitted.get(i);
      return [name, bytes === undefined ? result : { ...result, value: null, value_omitted_bytes: bytes }];
    }),
  );
}

export interface ResolvedNode extends NodeResult {
  name: string;
  order: number;
  finishedAt?: number;
}

/** The node items with their values read (from S3 for large ones). */
export async function resolveValues(nodes: readonly NodeItem[]): Promise<ResolvedNode[]> {
  return Promise.all(
    nodes.map(async (item) => ({
      name: item.name,
      order: item.order,
      finishedAt: item.finishedAt,
      status: item.status,
      value: await nodeValue(item),
      error_message: item.error_message ?? null,
      raw_error_message: item.raw_error_message ?? null,
      is_output_node: Boolean(item.isOutput),
    })),
  );
}

const resultOf = ({
  status,
  value,
  error_message,
  raw_error_message,
  is_output_node,
}: ResolvedNode): NodeResult => ({
  status,
  value,
  error_message,
  raw_error_message,
  is_output_node,
});

const byName = (nodes: readonly ResolvedNode[]) =>
  withinAnswerLimit(
    Object.fromEntries(nodes.map((node) => [node.name, resultOf(node)])) as Record<string, NodeResult>,
  );

/** The output node whose SUCCESS came first (declaration order breaks a tie), if any succeeded. */
export function mainOutputNode(nodes: readonly ResolvedNode[]): ResolvedNode | undefined {
  return nodes
    .filter((node) => node.is_output_node && node.status === 'SUCCESS')
    .sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0) || a.order - b.order)[0];
}

export function executionResults(
  nodes: readonly ResolvedNode[],
  returnAllOutputs: boolean,
): { status: 200 | 202; body: Record<string, NodeResult> } {
  const running = nodes.some((node) => node.status === 'QUEUED' || node.status === 'RUNNING');
  if (running) return { status: 202, body: byName(nodes) };
  if (returnAllOutputs) return { status: 200, body: byName(nodes) };
  const main = mainOutputNode(nodes);
  return { status: 200, body: byName(main ? [main] : nodes.filter((node) => node.is_output_node)) };
}

export const nodeResultSchema = z
  .object({
    status: z.enum(NODE_STATUSES),
    value: z.unknown(),
    error_message: z.nullable(z.string()),
    raw_error_message: z.nullable(z.string()),
    is_output_node: z.boolean(),
    value_omitted_bytes: z.optional(z.int()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowNodeResult' });

/** Both the 200 and the 202 answer: node name -> result. */
export const executionResultsSchema = z
  .record(z.string(), nodeResultSchema)
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowVersionExecutionResults' });

/** The results of one run of the workspace: 404 when there is no such run in it. */
export async function getExecutionResults(
  workspaceId: number,
  executionId: number,
  returnAllOutputs: boolean,
): Promise<{ status: 200 | 202; body: Record<string, NodeResult> }> {
  const execution = await readExecution(workspaceId, executionId);
  if (!execution) throw notFound(`workflow version execution ${executionId} not found`);
  return executionResults(await resolveValues(execution.nodes), returnAllOutputs);
}

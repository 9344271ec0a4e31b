import type { WorkflowNode } from '../definition.ts';
import { BASIC_EXECUTORS } from './basic.ts';
import { codeExecution } from './code-execution.ts';
import { endpoint } from './endpoint.ts';
import { llmAssertion } from './llm-assertion.ts';
import { promptTemplate } from './prompt-template.ts';
import { type NodeContext, type NodeExecutor, NodeFailure } from './types.ts';

/**
 * Every node type this service can run, by `node_type`. A type missing here (MCP, HUMAN, CODING_AGENT,
 * ...) is still accepted in a workflow version and fails when a run reaches it.
 */
export const NODE_EXECUTORS: Readonly<Record<string, NodeExecutor<never>>> = {
  ...BASIC_EXECUTORS,
  CODE_EXECUTION: codeExecution as NodeExecutor<never>,
  PROMPT_TEMPLATE: promptTemplate as NodeExecutor<never>,
  LLM_ASSERTION: llmAssertion as NodeExecutor<never>,
  ENDPOINT: endpoint as NodeExecutor<never>,
};

/**
 * A node type that only computes from its sources: bounded in time (a regular expression runs under the
 * sandbox's limit), it touches nothing outside the run, so running it twice is invisible.
 */
export const isComputeOnly = (nodeType: string): boolean => Object.hasOwn(BASIC_EXECUTORS, nodeType);

export const executorOf = (nodeType: string): NodeExecutor<never> | undefined =>
  Object.hasOwn(NODE_EXECUTORS, nodeType) ? NODE_EXECUTORS[nodeType] : undefined;

/** Runs one node: its value, or a NodeFailure (unknown type, invalid configuration, the executor's own). */
export async function executeNode(
  node: Pick<WorkflowNode, 'node_type' | 'configuration'>,
  context: NodeContext,
): Promise<unknown> {
  const executor = executorOf(node.node_type);
  if (!executor) throw new NodeFailure(`node type ${node.node_type} is not supported`);
  const parsed = await executor.config.safeParseAsync(node.configuration);
  if (!parsed.success) {
    throw new NodeFailure(`invalid configuration for ${node.node_type}: ${parsed.error.issues[0]?.message}`);
  }
  return executor.execute(parsed.data, context);
}

import { clip } from '#shared/platform/errors.ts';
import { keepLeased } from '#shared/platform/lease.ts';
import { logger } from '#shared/platform/logger.ts';
import { storeJson } from '#shared/platform/stored-json.ts';
import * as z from '#shared/platform/zod.ts';
import { isEdgeTaken } from '../edges.ts';
import { executeNode } from '../nodes/registry.ts';
import { type NodeContext, NodeFailure, type NodePorts } from '../nodes/types.ts';
import type { NodePlan } from '../plan.ts';
import { INLINE_VALUE_LIMIT_BYTES } from './limits.ts';
import {
  afterFinal,
  defaultProgressDeps,
  loadRunVersion,
  type ProgressDeps,
  type RunContext,
} from './progress.ts';
import {
  MAX_NODE_ATTEMPTS,
  NODE_LEASE_MS,
  NODE_LEASE_RENEW_MS,
  type NodeMessage,
  WORKFLOW_NODE_QUEUE,
} from './queue.ts';
import { fanInOf, isFinal, readiness } from './readiness.ts';
import {
  claimNode,
  executionInputs,
  finishNode,
  getMetaAndNodes,
  getNode,
  type NodeItem,
  type NodeOutcome,
  nodeValue,
  releaseLease,
  renewLease,
  valueObjectKey,
} from './store.ts';

/**
 * One delivery of a node message: claim the node (conditional, with a lease), read its inputs, run its
 * executor, write the outcome conditioned on the attempt, then move the run on. A message for a node
 * that is final already only repeats the moving on (idempotent), which finishes what a crashed worker
 * left undone; one for a node another worker holds, or that is not ready, is dropped.
 */
export interface WorkerDeps extends ProgressDeps {
  execute(node: NodePlan['node'], context: NodeContext): Promise<unknown>;
  ports: NodePorts;
}

export async function defaultWorkerDeps(): Promise<WorkerDeps> {
  const { NODE_PORTS } = await import('../nodes/ports.ts');
  return { ...defaultProgressDeps, execute: executeNode, ports: NODE_PORTS };
}

export const nodeMessageSchema = z.object({
  v: z.literal(1),
  type: z.literal('workflow-node'),
  ws: z.int(),
  executionId: z.int(),
  workflowId: z.int(),
  versionNumber: z.int(),
  node: z.string(),
});

/**
 * A failure's `error_message` and `raw_error_message` keep at most this many characters each: what an
 * executor fails with may come from user code (a CODE_EXECUTION node's thrown message) and must not make
 * the node's item pass DynamoDB's 400 KB limit (the write would fail on every delivery).
 */
export const MAX_NODE_ERROR_CHARS = 4096;

/** Room left before the worker's own timeout for writing the outcome and moving on. */
const WRITE_MARGIN_MS = 15_000;

export interface Delivery {
  receiveCount: number;
  maxReceiveCount?: number;
}

export async function processNodeMessage(
  message: NodeMessage,
  delivery: Delivery,
  deps: WorkerDeps,
): Promise<void> {
  const { version, plan } = await loadRunVersion(deps, message.ws, message.workflowId, message.versionNumber);
  const nodePlan = plan.nodes.get(message.node);
  if (!nodePlan) {
    logger.warn('Workflow node message for a node the version does not have', { node: message.node });
    return;
  }
  const run: RunContext = {
    ws: message.ws,
    executionId: message.executionId,
    workflowId: message.workflowId,
    versionNumber: message.versionNumber,
    plan,
    deps,
  };
  const lastDelivery =
    delivery.receiveCount >= (delivery.maxReceiveCount ?? WORKFLOW_NODE_QUEUE.maxReceiveCount);
  const now = deps.now();
  const dependencyNodes = nodePlan.node.dependencies.filter((name) => plan.nodes.has(name));
  // The claim and the read of the inputs go together: one round trip on the path of every node.
  const [claimed, inputs] = await Promise.all([
    claimNode(run.ws, run.executionId, message.node, now, NODE_LEASE_MS),
    getMetaAndNodes(run.ws, run.executionId, dependencyNodes),
  ]);
  if (!claimed) {
    const item = await getNode(run.ws, run.executionId, message.node);
    if (item && isFinal(item.status))
      await afterFinal(run, item.name, item.status, item.takenTo ?? new Set());
    // Not ready yet: the last predecessor's count sends it again. Held by a live lease: that worker's
    // own message comes back if the worker dies.
    return;
  }
  const attempt = Number(claimed.attempt);
  const finish = async (outcome: NodeOutcome) => {
    if (await finishNode(run.ws, run.executionId, message.node, outcome, { attempt }, deps.now())) {
      await afterFinal(run, message.node, outcome.status, outcome.takenTo ?? new Set());
    }
  };

  if (attempt > MAX_NODE_ATTEMPTS) {
    logger.error('Workflow node given up after repeated attempts', { node: message.node, attempt });
    return finish({
      status: 'FAILED',
      valueJson: 'null',
      error_message: `internal error: the node did not finish after ${MAX_NODE_ATTEMPTS} attempts`,
    });
  }
  // A message sent before the node was settled (the watchdog's) may find a node to skip.
  if (Number(claimed.pending) <= 0) {
    const skip = skipIfDue(run, claimed);
    if (skip) return finish(skip);
  }
  const meta = inputs.meta;
  if (!meta) throw new Error('the execution has no META item');
  if (now >= meta.deadline) {
    return finish({
      status: 'FAILED',
      valueJson: 'null',
      error_message: `timed out: the run did not finish within ${meta.timeoutSeconds} s`,
    });
  }

  // The lease lives as long as this worker: renewed until the node is final, so that a worker that
  // dies is taken over once its last renewal lapses.
  const stopRenewal = keepLeased(
    () => renewLease(run.ws, run.executionId, message.node, attempt, deps.now() + NODE_LEASE_MS),
    NODE_LEASE_RENEW_MS,
    `workflow node ${message.node}`,
  );
  try {
    const values: Record<string, unknown> = { ...(await executionInputs(meta)) };
    await Promise.all(
      dependencyNodes.map(async (name) => {
        const item = inputs.nodes.get(name);
        Object.defineProperty(values, name, {
          value: item?.status === 'SUCCESS' ? await nodeValue(item) : null,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }),
    );
    const context: NodeContext = {
      workspaceId: run.ws,
      inputs: values,
      deadline: Math.min(meta.deadline, now + WORKFLOW_NODE_QUEUE.timeoutSeconds * 1000 - WRITE_MARGIN_MS),
      ports: deps.ports,
      origin: {
        workflowId: version.workflow_id,
        workflowVersionNumber: version.version_number,
        executionId: run.executionId,
        nodeName: message.node,
      },
    };
    let outcome: NodeOutcome;
    try {
      const value = await deps.execute(nodePlan.node, context);
      const stored = await storeJson(
        valueObjectKey(run.ws, run.executionId, message.node, attempt),
        value,
        INLINE_VALUE_LIMIT_BYTES,
      );
      const upstream = await upstreamValues(run, nodePlan, values);
      const valueByName = (name: string) =>
        name === message.node
          ? (value ?? null)
          : Object.hasOwn(values, name)
            ? values[name]
            : (upstream.get(name) ?? null);
      const takenTo = new Set(
        nodePlan.successors.filter((successor) =>
          (plan.nodes.get(successor)?.inEdges ?? []).some(
            (edge) => edge.source_node_name === message.node && isEdgeTaken(edge, valueByName),
          ),
        ),
      );
      outcome = { status: 'SUCCESS', valueJson: stored.json, valueKey: stored.key, takenTo };
    } catch (error) {
      if (!(error instanceof NodeFailure)) throw error;
      outcome = {
        status: 'FAILED',
        valueJson: 'null',
        error_message: clip(error.message, MAX_NODE_ERROR_CHARS),
        raw_error_message: error.raw === null ? null : clip(error.raw, MAX_NODE_ERROR_CHARS),
      };
    }
    await finish(outcome);
  } catch (error) {
    if (!lastDelivery) {
      // The next delivery may claim the node at once instead of waiting out this lease.
      await releaseLease(run.ws, run.executionId, message.node, attempt);
      throw error;
    }
    logger.error('Workflow node failed on its last delivery: marked FAILED', {
      node: message.node,
      error: error as Error,
    });
    await finish({
      status: 'FAILED',
      valueJson: 'null',
      error_message: 'internal error: the node could not be run',
    });
  } finally {
    stopRenewal();
  }
}

/**
 * The values of the nodes the node's out-edges read that are not among its dependencies (nodes further
 * up, edge-only predecessors): all final, as the node waited for them (the graph's rule).
 */
async function upstreamValues(
  run: RunContext,
  nodePlan: NodePlan,
  values: Record<string, unknown>,
): Promise<Map<string, unknown>> {
  const names = new Set<string>();
  for (const successor of nodePlan.successors) {
    for (const edge of run.plan.nodes.get(successor)?.inEdges ?? []) {
      if (edge.source_node_name !== nodePlan.node.name) continue;
      for (const conditional of edge.conditionals) {
        for (const operand of [conditional.left_config, conditional.right_config]) {
          const source = 'source' in operand ? operand.source : undefined;
          if (source !== undefined && run.plan.nodes.has(source) && source !== nodePlan.node.name)
            if (!Object.hasOwn(values, source)) names.add(source);
        }
      }
    }
  }
  const found = new Map<string, unknown>();
  await Promise.all(
    [...names].map(async (name) => {
      const item = await getNode(run.ws, run.executionId, name);
      found.set(name, item?.status === 'SUCCESS' ? await nodeValue(item) : null);
    }),
  );
  return found;
}

function skipIfDue(run: RunContext, item: NodeItem): NodeOutcome | undefined {
  const plan = run.plan.nodes.get(item.name);
  if (!plan) return undefined;
  const decision = readiness(plan, { ...fanInOf(item), pending: 0 });
  return decision.action === 'skip'
    ? { status: 'SKIPPED', valueJson: 'null', error_message: decision.message }
    : undefined;
}

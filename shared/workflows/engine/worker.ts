import { clipError, type Delivery, runLeasedWork, workDeadline } from '#shared/platform/leased-work.ts';
import { logger } from '#shared/platform/logger.ts';
import { storeJson } from '#shared/platform/stored-json.ts';
import { isEdgeTaken } from '../edges.ts';
import { executeNode, isComputeOnly } from '../nodes/registry.ts';
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
  getNode,
  getRunInputs,
  type NodeItem,
  type NodeOutcome,
  nodeValue,
  releaseLease,
  rememberFinalNode,
  renewLease,
  valueObjectKey,
} from './store.ts';

/**
 * One delivery of a node message: claim the node (conditional, with a lease), read its inputs, run its
 * executor, write the outcome conditioned on the attempt, then move the run on. A message for a node
 * that is final already only repeats the moving on (idempotent), which finishes what a crashed worker
 * left undone; one for a node another worker holds, or that is not ready, is dropped.
 *
 * A compute-only node (VARIABLE, COMPARE, ...) takes no claim on a message's first delivery: it runs in
 * a moment, touches nothing and gives the same value for the same inputs, so its outcome is written
 * with one write conditioned on the node being ready and unfinished. Two deliveries may both compute
 * it; one outcome is written and the run moves on once. That saves a write per node, the most of a wide
 * fan-out's cost. A redelivery claims it as any node: the delivery before may have died on it, and the
 * claims' attempts give up a node that kills its worker every time.
 */
export interface WorkerDeps extends ProgressDeps {
  execute(node: NodePlan['node'], context: NodeContext): Promise<unknown>;
  ports: NodePorts;
}

export async function defaultWorkerDeps(): Promise<WorkerDeps> {
  const { NODE_PORTS } = await import('../nodes/ports.ts');
  return { ...defaultProgressDeps, execute: executeNode, ports: NODE_PORTS };
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
  const now = deps.now();
  const dependencyNodes = nodePlan.node.dependencies.filter((name) => plan.nodes.has(name));
  const claimed = !isComputeOnly(nodePlan.node.node_type) || delivery.receiveCount > 1;
  /** The claimed item (none for a compute-only node) and its attempt (1 for a compute-only node). */
  type Claim = { item?: NodeItem; attempt: number; inputs: Awaited<ReturnType<typeof getRunInputs>> };
  const internalFailure = (error_message: string): NodeOutcome => ({
    status: 'FAILED',
    valueJson: 'null',
    error_message,
  });

  await runLeasedWork<Claim, NodeOutcome, void>({
    what: 'Workflow node',
    logKeys: { node: message.node },
    delivery,
    maxReceiveCount: WORKFLOW_NODE_QUEUE.maxReceiveCount,
    claim: async () => {
      if (!claimed) {
        const inputs = await getRunInputs(run.ws, run.executionId, dependencyNodes);
        // A dependency not final yet: the node is not ready (its last predecessor sends it again).
        return dependencyNodes.every((name) => isFinal(inputs.nodes.get(name)?.status))
          ? { attempt: 1, inputs }
          : undefined;
      }
      // The claim and the read of the inputs go together: one round trip on the path of every node (the
      // read is left out when this container knows the inputs already).
      const [item, inputs] = await Promise.all([
        claimNode(run.ws, run.executionId, message.node, now, NODE_LEASE_MS, message.after),
        getRunInputs(run.ws, run.executionId, dependencyNodes),
      ]);
      if (item) return { item, attempt: Number(item.attempt), inputs };
      const found = await getNode(run.ws, run.executionId, message.node);
      if (found && isFinal(found.status))
        await afterFinal(run, found.name, found.status, found.takenTo ?? new Set(), true);
      // Not ready yet: the last predecessor's count sends it again. Held by a live lease: that worker's
      // own message comes back if the worker dies.
      return undefined;
    },
    attempts: claimed
      ? {
          of: (claim) => claim.attempt,
          max: MAX_NODE_ATTEMPTS,
          givenUp: () =>
            internalFailure(`internal error: the node did not finish after ${MAX_NODE_ATTEMPTS} attempts`),
        }
      : undefined,
    settle: ({ item, inputs }) => {
      // A message sent before the node was settled (the watchdog's) may find a node to skip.
      const skip = item && Number(item.pending) <= 0 ? skipIfDue(run, item) : undefined;
      if (skip) return skip;
      if (!inputs.meta) throw new Error('the execution has no META item');
      if (now >= inputs.meta.deadline)
        return internalFailure(`timed out: the run did not finish within ${inputs.meta.timeoutSeconds} s`);
      return undefined;
    },
    lease: claimed
      ? {
          renewEveryMs: NODE_LEASE_RENEW_MS,
          renew: ({ attempt }) =>
            renewLease(run.ws, run.executionId, message.node, attempt, deps.now() + NODE_LEASE_MS),
          release: ({ attempt }) => releaseLease(run.ws, run.executionId, message.node, attempt),
        }
      : undefined,
    execute: ({ attempt, inputs }) => runNode(run, deps, nodePlan, { attempt, now, inputs, version }),
    finish: async ({ attempt }, outcome) => {
      const from = claimed ? { attempt } : { unclaimed: { startedAt: now, after: message.after } };
      if (await finishNode(run.ws, run.executionId, message.node, outcome, from, deps.now())) {
        rememberFinalNode(run.ws, run.executionId, message.node, outcome);
        await afterFinal(run, message.node, outcome.status, outcome.takenTo ?? new Set());
      }
      // Unclaimed and written first by another delivery: that one moves on (were it to die, its message
      // comes back, claimed this time, or the watchdog moves on).
    },
    lastFailure: async (_claim, error) => {
      logger.error('Workflow node failed on its last delivery: marked FAILED', {
        node: message.node,
        error: error as Error,
      });
      return internalFailure('internal error: the node could not be run');
    },
  });
}

/**
 * Runs a node's executor on its inputs: its outcome (a NodeFailure is a FAILED outcome). A value too
 * large to keep inline goes to S3 under the attempt's key (an unclaimed node's is attempt 1: two
 * deliveries that compute it write the same value there).
 */
async function runNode(
  run: RunContext,
  deps: WorkerDeps,
  nodePlan: NodePlan,
  claim: {
    attempt: number;
    now: number;
    inputs: Awaited<ReturnType<typeof getRunInputs>>;
    version: { workflow_id: number; version_number: number };
  },
): Promise<NodeOutcome> {
  const name = nodePlan.node.name;
  const meta = claim.inputs.meta!;
  const values: Record<string, unknown> = { ...(await executionInputs(meta)) };
  await Promise.all(
    nodePlan.node.dependencies
      .filter((dependency) => run.plan.nodes.has(dependency))
      .map(async (dependency) => {
        const item = claim.inputs.nodes.get(dependency);
        Object.defineProperty(values, dependency, {
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
    deadline: Math.min(meta.deadline, workDeadline(claim.now, WORKFLOW_NODE_QUEUE.timeoutSeconds)),
    ports: deps.ports,
    origin: {
      workflowId: claim.version.workflow_id,
      workflowVersionNumber: claim.version.version_number,
      executionId: run.executionId,
      nodeName: name,
    },
  };
  try {
    const value = await deps.execute(nodePlan.node, context);
    const stored = await storeJson(
      valueObjectKey(run.ws, run.executionId, name, claim.attempt),
      value,
      INLINE_VALUE_LIMIT_BYTES,
    );
    const upstream = await upstreamValues(run, nodePlan, values);
    const valueByName = (source: string) =>
      source === name
        ? (value ?? null)
        : Object.hasOwn(values, source)
          ? values[source]
          : (upstream.get(source) ?? null);
    const takenTo = new Set<string>();
    for (const successor of nodePlan.successors) {
      for (const edge of run.plan.nodes.get(successor)?.inEdges ?? []) {
        if (edge.source_node_name === name && (await isEdgeTaken(edge, valueByName))) {
          takenTo.add(successor);
          break;
        }
      }
    }
    return { status: 'SUCCESS', valueJson: stored.json, valueKey: stored.key, takenTo };
  } catch (error) {
    if (!(error instanceof NodeFailure)) throw error;
    return {
      status: 'FAILED',
      valueJson: 'null',
      error_message: clipError(error.message),
      raw_error_message: error.raw === null ? null : clipError(error.raw),
    };
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

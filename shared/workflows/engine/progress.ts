import { emitEvents } from '#shared/events/emit.ts';
import { sendJobs } from '#shared/platform/jobs.ts';
import { logger } from '#shared/platform/logger.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { sendRunCallback } from '../callback.ts';
import { type GraphPlan, type NodePlan, planGraph } from '../plan.ts';
import { findWorkflowVersion, type WorkflowVersion } from '../store.ts';
import { type NodeMessage, WORKFLOW_NODE_QUEUE } from './queue.ts';
import { type FinalStatus, fanInOf, readiness } from './readiness.ts';
import { executionResults, resolveValues } from './results.ts';
import {
  completeExecution,
  countPredecessor,
  countSink,
  type ExecutionMeta,
  finishNode,
  getMeta,
  getNode,
  markNotified,
  type NodeItem,
  type PredecessorCount,
  readExecution,
  readExecutionNodes,
} from './store.ts';
import { publishRunComplete } from './updates.ts';

/**
 * How a run moves once a node is final, shared by the node worker and the watchdog: each successor
 * counts the node once; the count that leaves a successor with no predecessor pending schedules it
 * (one message) or skips it (and moves on from it in the same call). A successor with no other
 * predecessor is not counted: it is skipped, or sent with the count for its claim to write. A node
 * without successors counts on the run, and the count that leaves none makes the run COMPLETE, once,
 * and reports it.
 */
export interface FinishedRun {
  meta: ExecutionMeta;
  /** SUCCESS when an output node succeeded. */
  status: 'SUCCESS' | 'FAILED';
  /** What the results route answers for the run's `return_all_outputs` (the callback's final output). */
  finalOutput: unknown;
}

export interface ProgressDeps {
  now(): number;
  loadVersion(ws: number, workflowId: number, versionNumber: number): Promise<WorkflowVersion>;
  /** Queues node messages (several at once: one SQS call per ten). */
  send(messages: NodeMessage[]): Promise<void>;
  /**
   * Reports a finished run (event, callback, run update); may be called again for the same run after a
   * crash.
   */
  finished(run: FinishedRun): Promise<void>;
}

/** A workflow version and its plan, as a run walks it. */
export interface LoadedVersion {
  version: WorkflowVersion;
  plan: GraphPlan;
}

/** What the engine knows of one run while it moves it on. */
export interface RunContext {
  ws: number;
  executionId: number;
  workflowId: number;
  versionNumber: number;
  plan: GraphPlan;
  deps: ProgressDeps;
}

// Versions are immutable: a container keeps the ones it ran lately.
const versions = new TtlCache<Promise<LoadedVersion>>(10 * 60_000, 200);

export async function loadRunVersion(
  deps: ProgressDeps,
  ws: number,
  workflowId: number,
  versionNumber: number,
): Promise<LoadedVersion> {
  const key = `${ws}#${workflowId}#${versionNumber}`;
  const cached = versions.get(key);
  if (cached) return cached;
  const loading = deps.loadVersion(ws, workflowId, versionNumber).then((version) => ({
    version,
    plan: planGraph(version.graph),
  }));
  versions.set(key, loading, [key]);
  loading.catch(() => versions.invalidate(key));
  return loading;
}

/** Forgets the versions this container loaded (tests that reuse ids with other graphs). */
export const forgetVersions = () => versions.clear();

export const defaultProgressDeps: ProgressDeps = {
  now: () => Date.now(),
  loadVersion: (ws, workflowId, versionNumber) =>
    findWorkflowVersion(ws, String(workflowId), { version: versionNumber }),
  send: (messages) => sendJobs(WORKFLOW_NODE_QUEUE.name, messages),
  finished: reportFinished,
};

export function nodeMessage(run: RunContext, node: string): NodeMessage {
  return {
    v: 1,
    type: 'workflow-node',
    ws: run.ws,
    executionId: run.executionId,
    workflowId: run.workflowId,
    versionNumber: run.versionNumber,
    node,
  };
}

/**
 * A node now has no predecessor pending: it is sent to a worker, or SKIPPED (and the run moves on from
 * it). Safe to repeat: a second message finds the node claimed or final, a second skip is refused by its
 * condition.
 */
export async function settleReadyNode(run: RunContext, item: NodeItem): Promise<void> {
  await sendAll(run, await settle(run, item));
}

/**
 * Moves the run on from a final node: counts it on each successor (idempotent) and settles those it
 * left ready; a node without successors counts on the run. `repeated`: the moving on may have been
 * done before (a redelivery, the watchdog, a crash in between): it repeats nothing that was done and
 * finishes what was not.
 */
export async function afterFinal(
  run: RunContext,
  name: string,
  status: FinalStatus,
  takenTo: ReadonlySet<string>,
  repeated = false,
): Promise<void> {
  await sendAll(run, await moveOn(run, name, status, takenTo, repeated));
}

const sendAll = async (run: RunContext, messages: NodeMessage[]) => {
  if (messages.length) await run.deps.send(messages);
};

/** The messages of the nodes a settled node made ready (none when it is skipped: it moves on itself). */
async function settle(run: RunContext, item: NodeItem): Promise<NodeMessage[]> {
  if (item.status !== 'QUEUED') return [];
  const plan = run.plan.nodes.get(item.name);
  if (!plan) return [];
  const decision = readiness(plan, fanInOf(item));
  if (decision.action === 'wait') return [];
  if (decision.action === 'run') return [nodeMessage(run, item.name)];
  return skip(run, item.name, decision.message);
}

/** Makes a QUEUED node SKIPPED and moves on from it (nothing when another caller settled it first). */
async function skip(run: RunContext, name: string, message: string): Promise<NodeMessage[]> {
  const outcome = { status: 'SKIPPED' as const, valueJson: 'null', error_message: message };
  if (!(await finishNode(run.ws, run.executionId, name, outcome, 'QUEUED', run.deps.now()))) return [];
  return moveOn(run, name, 'SKIPPED', new Set());
}

async function moveOn(
  run: RunContext,
  name: string,
  status: FinalStatus,
  takenTo: ReadonlySet<string>,
  repeated = false,
): Promise<NodeMessage[]> {
  const plan = run.plan.nodes.get(name);
  if (!plan) return [];
  if (plan.successors.length === 0) {
    await countSinkAndComplete(run, name);
    return [];
  }
  const ready = await Promise.all(
    plan.successors.map(async (successor) => {
      const target = run.plan.nodes.get(successor);
      if (!target) return [];
      const counts = {
        taken: status === 'SUCCESS' && takenTo.has(successor),
        skipped: status === 'SKIPPED',
        failedDependency: status === 'FAILED' && target.node.dependencies.includes(name),
      };
      if (target.predecessors.length === 1) return handOn(run, target, name, counts, repeated);
      const counted = await countPredecessor(run.ws, run.executionId, successor, name, counts);
      if (counted === 'counted') return [];
      // Counted before (a redelivery, or a crash after the count): the successor may still wait for
      // the settling that crash prevented.
      const item = counted ?? (await getNode(run.ws, run.executionId, successor));
      return item && item.status === 'QUEUED' && Number(item.pending) <= 0 ? settle(run, item) : [];
    }),
  );
  return ready.flat();
}

/**
 * A successor whose only predecessor is `source` is not counted by it: what it becomes follows from
 * the source alone. It is SKIPPED here, or sent with a message whose claim writes the count (one write
 * a node instead of two). When the moving on is `repeated`, the successor is read first: one that was
 * claimed or settled already is left alone.
 */
async function handOn(
  run: RunContext,
  target: NodePlan,
  source: string,
  counts: PredecessorCount,
  repeated: boolean,
): Promise<NodeMessage[]> {
  const name = target.node.name;
  if (repeated) {
    const item = await getNode(run.ws, run.executionId, name);
    if (item?.status !== 'QUEUED') return [];
    // Counted by an earlier version of the engine.
    if (item.resolved?.has(source)) return Number(item.pending) <= 0 ? settle(run, item) : [];
  }
  const decision = readiness(target, {
    pending: 0,
    taken: counts.taken ? 1 : 0,
    skipped: counts.skipped ? 1 : 0,
    failedDependencies: counts.failedDependency ? [source] : [],
  });
  if (decision.action === 'skip') return skip(run, name, decision.message);
  return [{ ...nodeMessage(run, name), after: { node: source, taken: counts.taken } }];
}

async function countSinkAndComplete(run: RunContext, name: string): Promise<void> {
  const meta = (await countSink(run.ws, run.executionId, name)) ?? (await getMeta(run.ws, run.executionId));
  if (meta && meta.status === 'RUNNING' && Number(meta.sinksLeft) <= 0) await completeRun(run);
}

/** Ends the run if nobody did yet; the one caller that does reports it. */
export async function completeRun(run: ReportedRun): Promise<void> {
  if (await completeExecution(run.ws, run.executionId, run.deps.now())) await reportRun(run);
}

/** A run to report; with its plan, only its output nodes are read unless it returns all outputs. */
type ReportedRun = Pick<RunContext, 'ws' | 'executionId' | 'deps'> & { plan?: GraphPlan };

/**
 * Reports a COMPLETE run (`agent_run_finished`, the callback, the run update), then takes it out of the watchdog's
 * index. A crash in between leaves it there, and the watchdog reports it again (the event has a key,
 * so it stays one event).
 */
export async function reportRun(run: ReportedRun): Promise<void> {
  const execution = await readRunEnd(run);
  if (!execution) return;
  const nodes = await resolveValues(execution.nodes);
  const status = nodes.some((node) => node.is_output_node && node.status === 'SUCCESS')
    ? 'SUCCESS'
    : 'FAILED';
  await run.deps.finished({
    meta: execution.meta,
    status,
    finalOutput: executionResults(nodes, execution.meta.returnAllOutputs).body,
  });
  await markNotified(run.ws, run.executionId, run.deps.now(), status);
}

/** What the report needs: the output nodes when that is all it answers, else every node. */
async function readRunEnd(run: ReportedRun) {
  if (run.plan) {
    const outputs = [...run.plan.nodes.values()]
      .filter((node) => node.node.is_output_node)
      .map((node) => node.node.name);
    const read = await readExecutionNodes(run.ws, run.executionId, outputs);
    if (!read?.meta.returnAllOutputs) return read;
  }
  return readExecution(run.ws, run.executionId);
}

async function reportFinished({ meta, status, finalOutput }: FinishedRun): Promise<void> {
  await emitEvents(meta.workspaceId, [
    {
      type: 'agent_run_finished',
      key: String(meta.executionId),
      details: {
        agent_name: meta.workflowName,
        agent_id: meta.workflowId,
        agent_version_number: meta.versionNumber,
        agent_execution_id: meta.executionId,
        status,
      },
    },
  ]);
  if (meta.callbackUrl) {
    await sendRunCallback({
      workspaceId: meta.workspaceId,
      executionId: meta.executionId,
      url: meta.callbackUrl,
      finalOutput,
    });
  }
  await publishRunComplete(meta.workspaceId, meta.executionId, finalOutput);
  logger.info('Workflow run finished', { executionId: meta.executionId, status });
}

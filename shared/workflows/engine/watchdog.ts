import { logger } from '#shared/platform/logger.ts';
import {
  afterFinal,
  completeRun,
  defaultProgressDeps,
  loadRunVersion,
  nodeMessage,
  type ProgressDeps,
  type RunContext,
  reportRun,
  settleReadyNode,
} from './progress.ts';
import { MAX_NODE_ATTEMPTS } from './queue.ts';
import { isFinal } from './readiness.ts';
import {
  type ExecutionMeta,
  finishNode,
  markNotified,
  type NodeItem,
  openExecutions,
  readExecution,
} from './store.ts';

/**
 * The watchdog (a schedule; locally also the start-up sweep): reads the unfinished runs from the
 * sparse index and, for each run older than WORKFLOW_REQUEUE_AFTER_SECONDS (default 60):
 * - past its deadline: FAILS its running and ready nodes ("timed out"), which skips what waits on them;
 * - otherwise: sends ready QUEUED nodes again (their message may be lost: a restart, a dead-lettered
 *   message), sends nodes whose lease expired (their worker died) or gives them up after
 *   MAX_NODE_ATTEMPTS claims, and repeats the moving on from final nodes a successor has not counted;
 * - ends a run whose nodes are all final, and reports a COMPLETE run whose report was lost.
 * Every step is one the workers make too, so a run the watchdog and a worker both touch stays right.
 */
export const REQUEUE_AFTER_ENV = 'WORKFLOW_REQUEUE_AFTER_SECONDS';
export const DEFAULT_REQUEUE_AFTER_SECONDS = 60;
/** Runs read per index shard and sweep; the next sweep takes the rest. */
const SWEEP_PAGE = 100;
const SWEEP_CONCURRENCY = 8;
/** A run the watchdog keeps failing to sweep this long after its deadline is given up. */
const ABANDON_AFTER_MS = 60 * 60_000;

export interface WatchdogResult {
  runs: number;
  resent: number;
  timedOut: number;
  completed: number;
}

export async function sweepWorkflowRuns(deps: ProgressDeps = defaultProgressDeps): Promise<WatchdogResult> {
  const now = deps.now();
  const after = requeueAfterSeconds() * 1000;
  const open = await openExecutions(now - after, SWEEP_PAGE);
  const result: WatchdogResult = { runs: open.length, resent: 0, timedOut: 0, completed: 0 };
  for (let i = 0; i < open.length; i += SWEEP_CONCURRENCY) {
    await Promise.all(
      open.slice(i, i + SWEEP_CONCURRENCY).map((meta) =>
        sweepRun(meta, now, after, deps, result).catch(async (error: unknown) => {
          logger.error('Watchdog could not sweep a workflow run', {
            executionId: meta.executionId,
            error: error as Error,
          });
          // A run that cannot be swept long after its deadline (its version is gone) leaves the index,
          // so that it does not hold a place of the page for ever.
          if (now > meta.deadline + ABANDON_AFTER_MS)
            await markNotified(meta.workspaceId, meta.executionId, now);
        }),
      ),
    );
  }
  if (result.resent || result.timedOut || result.completed) logger.info('Workflow watchdog', { ...result });
  return result;
}

async function sweepRun(
  indexed: ExecutionMeta,
  now: number,
  after: number,
  deps: ProgressDeps,
  result: WatchdogResult,
): Promise<void> {
  const execution = await readExecution(indexed.workspaceId, indexed.executionId);
  if (!execution) return;
  const { meta, nodes } = execution;
  if (meta.status === 'COMPLETE') {
    // Its winner died between the COMPLETE write and the report.
    if ((meta.finishedAt ?? 0) < now - after)
      await reportRun({ ws: meta.workspaceId, executionId: meta.executionId, deps });
    return;
  }
  const { plan } = await loadRunVersion(deps, meta.workspaceId, meta.workflowId, meta.versionNumber);
  const run: RunContext = {
    ws: meta.workspaceId,
    executionId: meta.executionId,
    workflowId: meta.workflowId,
    versionNumber: meta.versionNumber,
    plan,
    deps,
  };
  if (nodes.every((node) => isFinal(node.status))) {
    result.completed++;
    await completeRun(run);
    return;
  }
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const counted = (node: NodeItem) => node.status === 'QUEUED' && Number(node.pending) <= 0;
  // A node's only predecessor does not count itself on it (the node's claim does): the node is ready
  // once that predecessor is final.
  const soleParentFinal = (node: NodeItem) => {
    const predecessors = plan.nodes.get(node.name)?.predecessors ?? [];
    return predecessors.length === 1 && isFinal(byName.get(predecessors[0]!)?.status);
  };
  const ready = (node: NodeItem) => counted(node) || (node.status === 'QUEUED' && soleParentFinal(node));

  const pastDeadline = now >= meta.deadline;
  if (pastDeadline) {
    const message = `timed out: the run did not finish within ${meta.timeoutSeconds} s`;
    for (const node of nodes.filter((node) => node.status === 'RUNNING' || ready(node))) {
      const outcome = { status: 'FAILED' as const, valueJson: 'null', error_message: message };
      if (await finishNode(run.ws, run.executionId, node.name, outcome, 'UNFINISHED', now)) {
        result.timedOut++;
        await afterFinal(run, node.name, 'FAILED', new Set());
      }
    }
  }

  for (const node of nodes) {
    if (isFinal(node.status)) {
      // A successor that has not counted this final node a while after it ended: the worker died
      // before moving on, or the message to an only successor was lost.
      const successors = plan.nodes.get(node.name)?.successors ?? [];
      const uncounted = successors.some((name) => {
        const successor = byName.get(name);
        return successor && !isFinal(successor.status) && !successor.resolved?.has(node.name);
      });
      if (uncounted && Number(node.finishedAt ?? 0) < now - after) {
        result.resent++;
        await afterFinal(run, node.name, node.status, node.takenTo ?? new Set(), true);
      }
    } else if (pastDeadline) {
      // failed above, or waiting on a node failed above
    } else if (
      counted(node) &&
      readySince(plan.nodes.get(node.name)?.predecessors ?? [], byName, meta) < now - after
    ) {
      result.resent++;
      await settleReadyNode(run, node);
    } else if (node.status === 'RUNNING' && Number(node.leaseUntil ?? 0) < now) {
      if (Number(node.attempt ?? 0) >= MAX_NODE_ATTEMPTS) {
        const outcome = {
          status: 'FAILED' as const,
          valueJson: 'null',
          error_message: `internal error: the node did not finish after ${MAX_NODE_ATTEMPTS} attempts`,
        };
        if (await finishNode(run.ws, run.executionId, node.name, outcome, 'UNFINISHED', now)) {
          await afterFinal(run, node.name, 'FAILED', new Set());
        }
      } else {
        result.resent++;
        await deps.send([nodeMessage(run, node.name)]);
      }
    }
  }
}

/** When a node became ready: its last predecessor's end, or the run's start for a root. */
function readySince(
  predecessors: readonly string[],
  byName: ReadonlyMap<string, NodeItem>,
  meta: ExecutionMeta,
): number {
  let since = meta.createdAt;
  for (const name of predecessors) since = Math.max(since, byName.get(name)?.finishedAt ?? 0);
  return since;
}

/** WORKFLOW_REQUEUE_AFTER_SECONDS: a number >= 0; unset, empty or anything else is the default. */
function requeueAfterSeconds(): number {
  const raw = process.env[REQUEUE_AFTER_ENV]?.trim();
  const setting = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(setting) && setting >= 0 ? setting : DEFAULT_REQUEUE_AFTER_SECONDS;
}

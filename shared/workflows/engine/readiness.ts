import type { NodePlan } from '../plan.ts';

/**
 * The pure rules of the engine: what a node whose predecessors are all final becomes, what a node's
 * status means, and the warning of a run's input variables. No I/O here; the engine applies them.
 */
export const NODE_STATUSES = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'SKIPPED'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];
export type FinalStatus = 'SUCCESS' | 'FAILED' | 'SKIPPED';

export const isFinal = (status: NodeStatus | undefined): status is FinalStatus =>
  status === 'SUCCESS' || status === 'FAILED' || status === 'SKIPPED';

/** What the predecessors of a node left on it, as the fan-in decrements count it. */
export interface FanIn {
  /** Predecessors not yet final. */
  pending: number;
  /** Predecessors whose edge into this node was taken (only a SUCCESS source can take an edge). */
  taken: number;
  /** Predecessors that ended SKIPPED. */
  skipped: number;
  /** Dependencies (not mere edge sources) that ended FAILED, in the order they were counted. */
  failedDependencies: readonly string[];
}

/** The fan-in counters as a node item stores them (absent ones are zero). */
export function fanInOf(item: {
  pending?: number;
  taken?: number;
  skipped?: number;
  failedDeps?: ReadonlySet<string>;
}): FanIn {
  return {
    pending: Number(item.pending ?? 0),
    taken: Number(item.taken ?? 0),
    skipped: Number(item.skipped ?? 0),
    failedDependencies: [...(item.failedDeps ?? [])],
  };
}

export type Readiness = { action: 'wait' } | { action: 'run' } | { action: 'skip'; message: string };

/**
 * A node is ready when every predecessor is final. It is then SKIPPED when a dependency FAILED (the
 * message names it, first in declaration order), when it has conditional in-edges and none was taken,
 * or when every predecessor was SKIPPED; otherwise it runs (a SKIPPED dependency reads as null).
 */
export function readiness(
  plan: Pick<NodePlan, 'node' | 'predecessors' | 'inEdges'>,
  fanIn: FanIn,
): Readiness {
  if (fanIn.pending > 0) return { action: 'wait' };
  if (fanIn.failedDependencies.length > 0) {
    const failed = new Set(fanIn.failedDependencies);
    const first = plan.node.dependencies.find((name) => failed.has(name)) ?? fanIn.failedDependencies[0];
    return { action: 'skip', message: `skipped: dependency ${first} failed` };
  }
  if (plan.inEdges.length > 0 && fanIn.taken === 0) {
    return { action: 'skip', message: 'skipped: no incoming edge condition was met' };
  }
  if (plan.predecessors.length > 0 && fanIn.skipped >= plan.predecessors.length) {
    return { action: 'skip', message: 'skipped: every dependency was skipped' };
  }
  return { action: 'run' };
}

/**
 * The 201/202 answer's `warning`: input variables the version requires that the run lacks, and those
 * the run gives that the version does not declare; null when there are neither.
 */
export function inputWarning(
  required: Readonly<Record<string, unknown>>,
  given: Readonly<Record<string, unknown>>,
): string | null {
  const missing = Object.keys(required).filter((name) => !Object.hasOwn(given, name));
  const unused = Object.keys(given).filter((name) => !Object.hasOwn(required, name));
  const parts: string[] = [];
  if (missing.length) parts.push(`Missing input variables: ${missing.join(', ')}.`);
  if (unused.length) parts.push(`Unused input variables: ${unused.join(', ')}.`);
  return parts.length ? parts.join(' ') : null;
}

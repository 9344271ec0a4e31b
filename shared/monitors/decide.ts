import type { WindowTotals } from './rollup-port.ts';
import type { Comparison, Metric } from './validation.ts';

/**
 * The decisions of an evaluation, as pure functions: the value of a metric over a window's totals,
 * whether it crosses the threshold, and what a group's state does about it.
 */

/** The metric's value; null when the window holds nothing to measure (no requests for a rate or p95). */
export function metricValue(metric: Metric, totals: WindowTotals): number | null {
  switch (metric) {
    case 'cost':
      return totals.cost;
    case 'requests':
      return totals.requests;
    case 'tokens':
      return totals.tokens;
    case 'error_rate':
      return totals.requests > 0 ? totals.errors / totals.requests : null;
    case 'latency_p95':
      return totals.requests > 0 ? totals.latencyP95Ms : null;
  }
}

export function crosses(value: number | null, comparison: Comparison, threshold: number): boolean {
  if (value === null) return false;
  switch (comparison) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
  }
}

/** A group's state as the evaluator keeps it (absent = ok, never triggered). */
export interface GroupState {
  status: 'ok' | 'triggered';
  /** Bumped by every transition: the condition of the next one. */
  seq: number;
  /** When the last monitor_triggered was decided (epoch ms): the cool-down counts from it. */
  lastTriggeredAt: number | null;
}

export const INITIAL_STATE: GroupState = { status: 'ok', seq: 0, lastTriggeredAt: null };

export type Transition = 'triggered' | 'resolved';

/**
 * What a group does at `now`: a triggered group whose value no longer crosses resolves; an ok group
 * whose value crosses triggers, unless its last trigger is less than the cool-down ago (it then stays
 * ok, and triggers at the first evaluation after the cool-down if it still crosses). Nothing else.
 */
export function decideTransition(
  state: GroupState,
  crossing: boolean,
  cooldownMs: number,
  now: number,
): Transition | undefined {
  if (state.status === 'triggered') return crossing ? undefined : 'resolved';
  if (!crossing) return undefined;
  const coolingDown = state.lastTriggeredAt !== null && now - state.lastTriggeredAt < cooldownMs;
  return coolingDown ? undefined : 'triggered';
}

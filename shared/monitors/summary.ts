import type { EvaluationPoint, EvaluationSummary, TransitionEntry } from './repository.ts';
import type { Comparison } from './validation.ts';

/** Evaluations a monitor keeps for its chart: the last hour of the minute schedule. */
export const MAX_RECENT_EVALUATIONS = 60;
/** Transitions it keeps (triggers and resolves, of any group). */
export const MAX_RECENT_TRANSITIONS = 20;

/**
 * The point an evaluation adds to the chart: the value of the monitor, or with a group_by the value of
 * the group nearest to crossing (the highest for gt/gte, the lowest for lt/lte); null for no value.
 */
export function evaluationPoint(
  values: ReadonlyArray<{ group: string | null; value: number | null }>,
  comparison: Comparison,
  at: number,
): EvaluationPoint {
  const above = comparison === 'gt' || comparison === 'gte';
  let worst: { group: string | null; value: number } | undefined;
  for (const { group, value } of values) {
    if (value === null) continue;
    if (!worst || (above ? value > worst.value : value < worst.value)) worst = { group, value };
  }
  return { at, value: worst?.value ?? null, group: worst?.group ?? null };
}

/** The summary after one more evaluation, its oldest entries dropped beyond the bounds. */
export function nextSummary(
  previous: EvaluationSummary,
  point: EvaluationPoint,
  transitions: readonly TransitionEntry[],
): EvaluationSummary {
  return {
    recent: [...previous.recent, point].slice(-MAX_RECENT_EVALUATIONS),
    transitions: [...previous.transitions, ...transitions].slice(-MAX_RECENT_TRANSITIONS),
  };
}

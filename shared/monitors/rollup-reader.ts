import { OTHER_LABEL } from '#shared/analytics/rollup-item.ts';
import { type WindowTotals as RollupTotals, readRollupWindow } from '#shared/analytics/rollup-query.ts';
import type { RollupWindowReader, WindowTotals } from './rollup-port.ts';

/** The evaluator's rollup reader: the analytics read API (shared/analytics), in the port's terms. */
const P95 = 0.95;

function toWindowTotals(totals: RollupTotals): WindowTotals {
  return {
    requests: totals.requests,
    errors: totals.errors,
    cost: totals.cost,
    tokens: totals.inputTokens + totals.outputTokens,
    latencyP95Ms: totals.latencyQuantile(P95) ?? null,
  };
}

export const readMonitorWindow: RollupWindowReader = async (workspaceId, window, query) => {
  const answer = await readRollupWindow(workspaceId, window, {
    filter: query.filter,
    groupBy: query.groupBy,
    // The evaluation's time: which 5-minute buckets are still kept.
    nowMs: window.toMs,
  });
  return {
    window: { fromMs: answer.fromMs, toMs: answer.toMs },
    totals: toWindowTotals(answer.totals),
    // The requests of values past a bucket's cap are no single user, model or prompt: not a group.
    groups: (answer.groups ?? [])
      .filter((group) => group.value !== OTHER_LABEL)
      .map((group) => ({ value: group.value, totals: toWindowTotals(group.totals) })),
    itemsRead: answer.itemsRead,
  };
};

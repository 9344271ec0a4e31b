import type { Dimension } from './validation.ts';

/**
 * What the evaluator asks the request-log rollups (shared/analytics): the merged totals of one time
 * window, for the rows matching an optional filter, as a whole or per value of one dimension, and how
 * many items the answer read. The evaluator takes the reader as a parameter, so its tests give it a
 * fake and the scheduled function gives it the rollups' own reader.
 */
export interface WindowTotals {
  requests: number;
  errors: number;
  /** USD. */
  cost: number;
  /** Input plus output tokens. */
  tokens: number;
  /** The 95th percentile of latency in ms (from the merged sketch); null without requests. */
  latencyP95Ms: number | null;
}

export interface WindowAnswer {
  /** The window the totals cover: the asked one, widened by the rollups to their bucket boundaries. */
  window: { fromMs: number; toMs: number };
  totals: WindowTotals;
  /**
   * With `groupBy`: the totals per value seen in the window (values without requests are absent, and
   * so are the requests the rollups could not keep apart: past their per-bucket cap of values).
   */
  groups: { value: string; totals: WindowTotals }[];
  /** DynamoDB items read to answer (the bench prints it per monitor). */
  itemsRead: number;
}

export interface WindowQuery {
  /** A rollup dimension's value (a prompt_label filter is resolved to its prompt_version first). */
  filter?: { dimension: Dimension; value: string };
  groupBy?: Dimension;
}

export type RollupWindowReader = (
  workspaceId: number,
  window: { fromMs: number; toMs: number },
  query: WindowQuery,
) => Promise<WindowAnswer>;

export const EMPTY_TOTALS: WindowTotals = { requests: 0, errors: 0, cost: 0, tokens: 0, latencyP95Ms: null };

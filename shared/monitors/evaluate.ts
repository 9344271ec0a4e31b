import { emitEvents, type NewEvent } from '#shared/events/emit.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { logger } from '#shared/platform/logger.ts';
import { toIso } from '#shared/platform/time.ts';
import { crosses, decideTransition, INITIAL_STATE, metricValue, type Transition } from './decide.ts';
import { PROMPT_LABEL_DIMENSION, resolvePromptLabel } from './prompt-label.ts';
import {
  activeMonitors,
  clearPendingEvent,
  type MonitorRecord,
  putEvaluationSummary,
  readStatesAndSummary,
  type StoredGroupState,
  stateSortKey,
  type TransitionEntry,
  writeTransition,
} from './repository.ts';
import { EMPTY_TOTALS, type RollupWindowReader, type WindowQuery, type WindowTotals } from './rollup-port.ts';
import { evaluationPoint, nextSummary } from './summary.ts';

/**
 * One evaluation of every active monitor (the `monitor-evaluation` schedule, each minute): per monitor,
 * one read of the rollups over its window and one Query of its state, then, for each group whose value
 * crossed (or crossed back), a conditional write of its state followed by its event. What it reads
 * depends on the number of monitors and on the rollups' tiling of the window, never on traffic.
 */
const MINUTE_MS = 60_000;
/** Monitors evaluated at once. */
const CONCURRENCY = 8;
/**
 * Transitions one monitor makes per evaluation: a group_by over thousands of values crossing at once
 * must not hold the run past its minute. The groups left over still cross, so they transition at the
 * next evaluations.
 */
export const MAX_TRANSITIONS_PER_EVALUATION = 100;

export interface MonitorEvaluation {
  transitions: number;
  /** Rollup items the window read took. */
  rollupItemsRead: number;
}

export interface EvaluationRun {
  monitors: number;
  transitions: number;
  failed: number;
  rollupItemsRead: number;
  /** Queries of the active-monitor index. */
  indexQueries: number;
}

/** The end of the windows evaluated at `now`: the start of its minute (whole minutes, aligned to the rollups). */
export const windowEnd = (now: number) => Math.floor(now / MINUTE_MS) * MINUTE_MS;

/** Evaluates every workspace's active monitors; a monitor that fails is logged and counted, not fatal. */
export async function evaluateMonitors(reader: RollupWindowReader, now: number): Promise<EvaluationRun> {
  const { monitors, queries } = await activeMonitors();
  const run: EvaluationRun = {
    monitors: monitors.length,
    transitions: 0,
    failed: 0,
    rollupItemsRead: 0,
    indexQueries: queries,
  };
  await forEachLimited(monitors, CONCURRENCY, async (monitor) => {
    try {
      const result = await evaluateMonitor(monitor, reader, now);
      run.transitions += result.transitions;
      run.rollupItemsRead += result.rollupItemsRead;
    } catch (error) {
      run.failed++;
      logger.error('Monitor evaluation failed', {
        workspaceId: monitor.workspaceId,
        monitorId: monitor.id,
        error,
      });
    }
  });
  if (run.transitions || run.failed) logger.info('Monitor evaluation', { ...run });
  return run;
}

/** Evaluates one monitor at `now` over the whole minutes of its window. */
export async function evaluateMonitor(
  monitor: MonitorRecord,
  reader: RollupWindowReader,
  now: number,
): Promise<MonitorEvaluation> {
  const toMs = windowEnd(now);
  const window = { fromMs: toMs - monitor.windowMinutes * MINUTE_MS, toMs };
  const [filter, { states, summary }] = await Promise.all([
    rollupFilter(monitor),
    readStatesAndSummary(monitor.workspaceId, monitor.id),
  ]);

  // An event a crashed evaluation wrote on a state but never recorded goes first (same key, same id).
  for (const state of states.values()) {
    if (state.pendingEvent) await recordEvent(monitor, state.group, state.seq, state.pendingEvent);
  }
  // A label deleted (or its prompt) since creation: nothing to watch, so nothing changes until it is back.
  if (filter === null) {
    logger.warn('Monitor prompt label not found', {
      workspaceId: monitor.workspaceId,
      monitorId: monitor.id,
      promptLabel: monitor.filter?.value,
    });
    return { transitions: 0, rollupItemsRead: 0 };
  }
  const answer = await reader(monitor.workspaceId, window, {
    filter,
    groupBy: monitor.groupBy ?? undefined,
  });

  // The groups seen in the window, and those with a state but no traffic now (they may resolve).
  const observed = new Map<string | null, WindowTotals>(
    monitor.groupBy ? answer.groups.map((group) => [group.value, group.totals]) : [[null, answer.totals]],
  );
  for (const state of states.values()) {
    if (!observed.has(state.group)) observed.set(state.group, EMPTY_TOTALS);
  }

  let transitions = 0;
  const values: { group: string | null; value: number | null }[] = [];
  const made: TransitionEntry[] = [];
  for (const [group, totals] of observed) {
    const value = metricValue(monitor.metric, totals);
    values.push({ group, value });
    if (transitions === MAX_TRANSITIONS_PER_EVALUATION) continue;
    const state: StoredGroupState = states.get(stateSortKey(group)) ?? {
      ...INITIAL_STATE,
      group,
      pendingEvent: null,
    };
    const crossing = crosses(value, monitor.comparison, monitor.threshold);
    const transition = decideTransition(state, crossing, monitor.cooldownMinutes * MINUTE_MS, now);
    if (!transition) continue;
    const event = JSON.stringify(
      monitorEvent(monitor, { group, transition, value, window: answer.window, state, now }),
    );
    const won = await writeTransition(monitor.workspaceId, monitor.id, {
      group,
      transition,
      fromSeq: state.seq,
      now,
      cooldownMinutes: monitor.cooldownMinutes,
      event,
      value,
    });
    // Lost to an evaluation running at the same time: that one reports the transition.
    if (!won) continue;
    transitions++;
    made.push({ transition, group, value, at: now });
    await recordEvent(monitor, group, state.seq + 1, event);
  }
  // What the dashboard draws: this evaluation's value and transitions.
  await putEvaluationSummary(
    monitor.workspaceId,
    monitor.id,
    nextSummary(summary, evaluationPoint(values, monitor.comparison, now), made),
  );
  return { transitions, rollupItemsRead: answer.itemsRead };
}

/**
 * The rollup filter of this evaluation: a prompt_label filter is where its label points now (one read),
 * null when the prompt or its label is gone; undefined for no filter.
 */
async function rollupFilter(monitor: MonitorRecord): Promise<WindowQuery['filter'] | null> {
  if (!monitor.filter) return undefined;
  const { dimension, value } = monitor.filter;
  if (dimension !== PROMPT_LABEL_DIMENSION) return { dimension, value };
  return (await resolvePromptLabel(monitor.workspaceId, value)) ?? null;
}

/** Records (and puts on the bus) the event a state carries, then takes it off the state. */
async function recordEvent(monitor: MonitorRecord, group: string | null, seq: number, event: string) {
  await emitEvents(monitor.workspaceId, [JSON.parse(event) as NewEvent]);
  await clearPendingEvent(monitor.workspaceId, monitor.id, group, seq);
}

interface EventFacts {
  group: string | null;
  transition: Transition;
  value: number | null;
  window: { fromMs: number; toMs: number };
  state: StoredGroupState;
  now: number;
}

/** The event of a transition, keyed by the monitor, group and transition, so a retry is the same event. */
function monitorEvent(monitor: MonitorRecord, facts: EventFacts): NewEvent {
  const common = {
    monitor_id: monitor.id,
    monitor_name: monitor.name,
    metric: monitor.metric,
    comparison: monitor.comparison,
    threshold: monitor.threshold,
    window_minutes: monitor.windowMinutes,
    filter: monitor.filter,
    group_by: monitor.groupBy,
    group_value: facts.group,
    value: facts.value,
    window_start: toIso(facts.window.fromMs),
    window_end: toIso(facts.window.toMs),
  };
  const key = `${monitor.id}\n${stateSortKey(facts.group)}\n${facts.state.seq + 1}\n${facts.now}`;
  if (facts.transition === 'triggered') {
    return { type: 'monitor_triggered', key, details: { ...common, triggered_at: toIso(facts.now) } };
  }
  const triggeredAt = facts.state.lastTriggeredAt;
  return {
    type: 'monitor_resolved',
    key,
    details: {
      ...common,
      triggered_at: triggeredAt === null ? null : toIso(triggeredAt),
      resolved_at: toIso(facts.now),
    },
  };
}

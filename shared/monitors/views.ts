import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import type { EvaluationSummary, MonitorRecord, StoredGroupState } from './repository.ts';
import { MAX_RECENT_EVALUATIONS, MAX_RECENT_TRANSITIONS } from './summary.ts';
import { COMPARISONS, METRICS } from './validation.ts';

/** What the API answers for monitors, and the schemas of those answers. */
export const monitorViewSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    metric: z.enum(METRICS),
    filter: z
      .nullable(z.object({ dimension: z.string(), value: z.string() }))
      .clone()
      .register(z.globalRegistry, {
        description:
          'Only requests with this dimension value count; `prompt_label` (`<prompt name>:<label>`) is the version the label points at, read at each evaluation.',
      }),
    group_by: z.nullable(z.string()).clone().register(z.globalRegistry, {
      description: 'Each value of this dimension triggers and resolves on its own.',
    }),
    window_minutes: z.int(),
    threshold: z.number(),
    comparison: z.enum(COMPARISONS),
    cooldown_minutes: z.int(),
    is_active: z.boolean(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'Monitor' });
export type MonitorView = z.infer<typeof monitorViewSchema>;

export function toMonitorView(monitor: MonitorRecord): MonitorView {
  return {
    id: monitor.id,
    name: monitor.name,
    metric: monitor.metric,
    filter: monitor.filter,
    group_by: monitor.groupBy,
    window_minutes: monitor.windowMinutes,
    threshold: monitor.threshold,
    comparison: monitor.comparison,
    cooldown_minutes: monitor.cooldownMinutes,
    is_active: monitor.isActive,
    created_at: toIso(monitor.createdAt),
    updated_at: toIso(monitor.updatedAt),
  };
}

export const monitorSchema = z.object({ success: z.literal(true), monitor: monitorViewSchema });
export const monitorListSchema = z.object({ success: z.literal(true), monitors: z.array(monitorViewSchema) });

const groupValue = z.nullable(z.string()).clone().register(z.globalRegistry, {
  description: 'The group_by value it is about; null for a monitor without a group_by.',
});

export const monitorStateViewSchema = z
  .object({
    status: z
      .enum(['ok', 'triggered'])
      .clone()
      .register(z.globalRegistry, { description: '`triggered` while any of its groups is.' }),
    triggered_groups: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'How many groups are triggered now.' }),
    last_evaluated_at: z
      .nullable(isoTimestamp)
      .clone()
      .register(z.globalRegistry, { description: 'null: not evaluated yet.' }),
    last_value: z.nullable(z.number()).clone().register(z.globalRegistry, {
      description:
        'The value at the last evaluation (with a group_by, of the group nearest to crossing); null for no value (no request in the window).',
    }),
    last_group_value: groupValue,
    recent_evaluations: z
      .array(z.object({ evaluated_at: isoTimestamp, value: z.nullable(z.number()), group_value: groupValue }))
      .clone()
      .register(z.globalRegistry, {
        description: `The newest ${MAX_RECENT_EVALUATIONS} evaluations, oldest first.`,
      }),
    recent_transitions: z
      .array(
        z.object({
          transition: z.enum(['triggered', 'resolved']),
          at: isoTimestamp,
          value: z.nullable(z.number()),
          group_value: groupValue,
        }),
      )
      .clone()
      .register(z.globalRegistry, {
        description: `The newest ${MAX_RECENT_TRANSITIONS} triggers and resolves, oldest first.`,
      }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'MonitorState' });
export type MonitorStateView = z.infer<typeof monitorStateViewSchema>;

export function toMonitorStateView(
  states: Iterable<StoredGroupState>,
  summary: EvaluationSummary,
): MonitorStateView {
  const triggered = [...states].filter((state) => state.status === 'triggered').length;
  const last = summary.recent.at(-1);
  return {
    status: triggered > 0 ? 'triggered' : 'ok',
    triggered_groups: triggered,
    last_evaluated_at: last ? toIso(last.at) : null,
    last_value: last?.value ?? null,
    last_group_value: last?.group ?? null,
    recent_evaluations: summary.recent.map((point) => ({
      evaluated_at: toIso(point.at),
      value: point.value,
      group_value: point.group,
    })),
    recent_transitions: summary.transitions.map((entry) => ({
      transition: entry.transition,
      at: toIso(entry.at),
      value: entry.value,
      group_value: entry.group,
    })),
  };
}

export const monitorStateSchema = z.object({ success: z.literal(true), state: monitorStateViewSchema });

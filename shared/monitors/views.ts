import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import type { MonitorRecord } from './repository.ts';
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

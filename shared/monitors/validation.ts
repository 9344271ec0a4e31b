import {
  type Dimension,
  FIXED_DIMENSIONS,
  isDimension,
  MAX_VALUE_LENGTH,
  METADATA_PREFIX,
} from '#shared/analytics/facts.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { PROMPT_LABEL_DIMENSION, parsePromptLabel } from './prompt-label.ts';

export type { Dimension };

/**
 * What a monitor may say: a metric over the request-log rollups, an optional filter and group_by over
 * their dimensions, a rolling window, a threshold with its comparison, and a cool-down. Everything a
 * monitor can ask is answerable from the rollups alone (docs/monitors.md says which questions are not).
 */
export const MAX_MONITORS_PER_WORKSPACE = 100;
export const MAX_NAME_LENGTH = 200;
/** A rolling window: 5 minutes .. 30 days. */
export const MIN_WINDOW_MINUTES = 5;
export const MAX_WINDOW_MINUTES = 30 * 24 * 60;
/** A cool-down: none .. 7 days; an hour unless told. */
export const MAX_COOLDOWN_MINUTES = 7 * 24 * 60;
export const DEFAULT_COOLDOWN_MINUTES = 60;

export const METRICS = ['cost', 'requests', 'error_rate', 'latency_p95', 'tokens'] as const;
export type Metric = (typeof METRICS)[number];

export const COMPARISONS = ['gt', 'gte', 'lt', 'lte'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/**
 * The dimensions a monitor may filter on or group by are the rollups' (shared/analytics/facts.ts): the
 * fixed ones, and `metadata.<key>` for a metadata key. The rollups keep one aggregate per (dimension,
 * value), never per pair of dimensions, so a filter and a group_by cannot be combined (see
 * `monitorDefinitionIssue`).
 */
const dimensionSchema = z
  .pipe(
    z.string().check(
      z.refine(isDimension, {
        message: `must be one of ${FIXED_DIMENSIONS.join(', ')} or metadata.<key>`,
      }),
    ),
    z.transform((value) => value as Dimension),
  )
  .check(
    z.refine((value) => value.length <= METADATA_PREFIX.length + MAX_VALUE_LENGTH, {
      message: `a metadata key is kept to its first ${MAX_VALUE_LENGTH} characters`,
    }),
  );

/**
 * A filter is on a rollup dimension, or on a prompt's release label (`prompt_label`,
 * `<prompt name>:<label>`), which each evaluation turns into the `prompt_version` it points at
 * (prompt-label.ts).
 */
const filterSchema = z
  .strictObject({
    dimension: z
      .union([z.literal(PROMPT_LABEL_DIMENSION), dimensionSchema])
      .clone()
      .register(z.globalRegistry, {
        description: `${FIXED_DIMENSIONS.join(', ')}, metadata.<key>, or prompt_label (value <prompt name>:<label>)`,
      }),
    // The rollups keep a value's first MAX_VALUE_LENGTH characters: a longer one would never match.
    value: wellFormedString().check(z.minLength(1), z.maxLength(MAX_VALUE_LENGTH)),
  })
  .check(
    z.superRefine((filter, ctx) => {
      if (filter.dimension === PROMPT_LABEL_DIMENSION && !parsePromptLabel(filter.value)) {
        ctx.addIssue({
          code: 'custom',
          path: ['value'],
          message: 'a prompt_label filter is <prompt name>:<label> (support-bot:prod)',
        });
      }
    }),
  );
export type MonitorFilter = z.infer<typeof filterSchema>;

const nameSchema = wellFormedString().check(
  z.trim(),
  z.minLength(1, 'must not be empty'),
  z.maxLength(MAX_NAME_LENGTH),
);
const windowSchema = z.int().check(z.gte(MIN_WINDOW_MINUTES), z.lte(MAX_WINDOW_MINUTES));
const thresholdSchema = z.number().check(z.gte(0), z.lte(1e12));
const cooldownSchema = z.int().check(z.gte(0), z.lte(MAX_COOLDOWN_MINUTES));

/** A definition the rollups cannot answer, or one that can never cross: a message, else undefined. */
export function monitorDefinitionIssue(monitor: {
  metric: Metric;
  threshold: number;
  filter?: MonitorFilter | null;
  group_by?: Dimension | null;
}): { path: string; message: string } | undefined {
  if (monitor.filter && monitor.group_by) {
    return {
      path: 'group_by',
      message:
        'cannot be combined with a filter: the rollups keep totals per dimension value, not per pair of values (use a filter or a group_by)',
    };
  }
  if (monitor.metric === 'error_rate' && monitor.threshold > 1) {
    return { path: 'threshold', message: 'an error_rate is a fraction between 0 and 1 (0.05 is 5 %)' };
  }
  return undefined;
}

export const createMonitorSchema = z
  .strictObject({
    name: nameSchema,
    metric: z.enum(METRICS),
    filter: z.optional(z.nullable(filterSchema)),
    group_by: z.optional(z.nullable(dimensionSchema)),
    window_minutes: windowSchema,
    threshold: thresholdSchema,
    comparison: z._default(z.enum(COMPARISONS), 'gt'),
    cooldown_minutes: z._default(cooldownSchema, DEFAULT_COOLDOWN_MINUTES),
    is_active: z._default(z.boolean(), true),
  })
  .check(
    z.superRefine((body, ctx) => {
      const issue = monitorDefinitionIssue(body);
      if (issue) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
    }),
  );
export type CreateMonitorInput = z.infer<typeof createMonitorSchema>;

/** Fields a PATCH may not name: sent at all, a 422 saying why. */
const fixedAtCreation = z.optional(
  z
    .unknown()
    .check(z.refine(() => false, 'is fixed at creation: create another monitor to ask another question')),
);

/**
 * What a PATCH may change. The metric, filter and group_by are what a monitor's state is about (its
 * groups, the value each one crossed with): changing them would leave that state meaning nothing, so
 * they are fixed at creation.
 */
export const updateMonitorSchema = z
  .strictObject({
    name: z.optional(nameSchema),
    window_minutes: z.optional(windowSchema),
    threshold: z.optional(thresholdSchema),
    comparison: z.optional(z.enum(COMPARISONS)),
    cooldown_minutes: z.optional(cooldownSchema),
    is_active: z.optional(z.boolean()),
    metric: fixedAtCreation,
    filter: fixedAtCreation,
    group_by: fixedAtCreation,
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message:
        'name at least one of name, window_minutes, threshold, comparison, cooldown_minutes, is_active',
    }),
  );
export type UpdateMonitorInput = z.infer<typeof updateMonitorSchema>;

import { describe, expect, it } from 'vitest';
import { crosses, decideTransition, type GroupState, metricValue } from '#shared/monitors/decide.ts';
import { parsePromptLabel } from '#shared/monitors/prompt-label.ts';
import { EMPTY_TOTALS } from '#shared/monitors/rollup-port.ts';
import { createMonitorSchema, updateMonitorSchema } from '#shared/monitors/validation.ts';

/** What a monitor decides from a window's totals: the metric, the crossing, the transition. */
const totals = { requests: 40, errors: 4, cost: 5.5, tokens: 12_000, latencyP95Ms: 900 };
const HOUR = 3_600_000;

describe('a metric over a window', () => {
  it.each([
    ['cost', 5.5],
    ['requests', 40],
    ['tokens', 12_000],
    ['error_rate', 0.1],
    ['latency_p95', 900],
  ] as const)('%s is read from the totals', (metric, value) => {
    expect(metricValue(metric, totals)).toBe(value);
  });

  it('a window without requests has no error rate or p95, but zero cost, requests and tokens', () => {
    expect(metricValue('error_rate', EMPTY_TOTALS)).toBeNull();
    expect(metricValue('latency_p95', EMPTY_TOTALS)).toBeNull();
    expect(metricValue('cost', EMPTY_TOTALS)).toBe(0);
    expect(metricValue('requests', EMPTY_TOTALS)).toBe(0);
  });
});

describe('crossing a threshold', () => {
  it.each([
    ['gt', 5, false],
    ['gte', 5, true],
    ['lt', 5, false],
    ['lte', 5, true],
    ['gt', 5.01, true],
    ['lt', 4.99, true],
  ] as const)('%s 5 with the value %d: %s', (comparison, value, expected) => {
    expect(crosses(value, comparison, 5)).toBe(expected);
  });

  it('nothing to measure never crosses, whatever the comparison', () => {
    expect(crosses(null, 'lt', 5)).toBe(false);
    expect(crosses(null, 'gt', 5)).toBe(false);
  });
});

describe('a transition', () => {
  const ok: GroupState = { status: 'ok', seq: 0, lastTriggeredAt: null };
  const triggered: GroupState = { status: 'triggered', seq: 1, lastTriggeredAt: 0 };
  const now = 10 * HOUR;

  it('an ok group that crosses triggers; one that does not stays', () => {
    expect(decideTransition(ok, true, HOUR, now)).toBe('triggered');
    expect(decideTransition(ok, false, HOUR, now)).toBeUndefined();
  });

  it('a triggered group that still crosses stays triggered (no second event); one that does not resolves', () => {
    expect(decideTransition(triggered, true, HOUR, now)).toBeUndefined();
    expect(decideTransition(triggered, false, HOUR, now)).toBe('resolved');
  });

  it('within the cool-down of its last trigger a group does not trigger again; after it, it does', () => {
    const resolved: GroupState = { status: 'ok', seq: 2, lastTriggeredAt: now - HOUR + 1 };
    expect(decideTransition(resolved, true, HOUR, now)).toBeUndefined();
    expect(decideTransition(resolved, true, HOUR, now + 1)).toBe('triggered');
    expect(decideTransition(resolved, true, 0, now)).toBe('triggered');
  });

  it('the cool-down never delays a resolve', () => {
    expect(decideTransition({ ...triggered, lastTriggeredAt: now }, false, HOUR, now)).toBe('resolved');
  });
});

describe('a monitor definition', () => {
  const valid = { name: 'spend', metric: 'cost', window_minutes: 1440, threshold: 5 };

  it('takes defaults: gt, an hour of cool-down, active', () => {
    expect(createMonitorSchema.parse(valid)).toMatchObject({
      comparison: 'gt',
      cooldown_minutes: 60,
      is_active: true,
    });
  });

  it.each([
    [{ metric: 'p99' }, 'metric'],
    [{ window_minutes: 4 }, 'window_minutes'],
    [{ window_minutes: 43_201 }, 'window_minutes'],
    [{ comparison: 'eq' }, 'comparison'],
    [{ group_by: 'user' }, 'group_by'],
    [{ filter: { dimension: 'metadata.', value: 'x' } }, 'filter'],
    [{ filter: { dimension: 'model', value: 'gpt-4o' }, group_by: 'metadata.user_id' }, 'group_by'],
    [{ metric: 'error_rate', threshold: 5 }, 'threshold'],
    [{ cooldown_minutes: -1 }, 'cooldown_minutes'],
    [{ filter: { dimension: 'prompt_label', value: 'support-bot' } }, 'filter'],
    [{ filter: { dimension: 'prompt_label', value: ':prod' } }, 'filter'],
    [{ filter: { dimension: 'prompt_label', value: 'support-bot:' } }, 'filter'],
    [{ group_by: 'prompt_label' }, 'group_by'],
  ])('refuses %j at %s', (change, field) => {
    const result = createMonitorSchema.safeParse({ ...valid, ...change });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path[0])).toContain(field);
  });

  it('accepts a per-user limit and a filter on a metadata key', () => {
    expect(createMonitorSchema.safeParse({ ...valid, group_by: 'metadata.user_id' }).success).toBe(true);
    expect(
      createMonitorSchema.safeParse({ ...valid, filter: { dimension: 'metadata.team', value: 'search' } })
        .success,
    ).toBe(true);
  });

  it('a filter on a prompt label names <prompt name>:<label>, split at the last colon', () => {
    const parsed = createMonitorSchema.safeParse({
      ...valid,
      filter: { dimension: 'prompt_label', value: 'team:support-bot:prod' },
    });
    expect(parsed.success).toBe(true);
    expect(parsePromptLabel('team:support-bot:prod')).toEqual({
      promptName: 'team:support-bot',
      label: 'prod',
    });
    const malformed = createMonitorSchema.safeParse({
      ...valid,
      filter: { dimension: 'prompt_label', value: 'bot' },
    });
    expect(malformed.error?.issues).toEqual([
      expect.objectContaining({
        path: ['filter', 'value'],
        message: 'a prompt_label filter is <prompt name>:<label> (support-bot:prod)',
      }),
    ]);
  });

  it('a change may not touch the metric, filter or group_by, and must change something', () => {
    expect(updateMonitorSchema.safeParse({ metric: 'requests' }).success).toBe(false);
    expect(updateMonitorSchema.safeParse({ group_by: null }).success).toBe(false);
    expect(updateMonitorSchema.safeParse({}).success).toBe(false);
    expect(updateMonitorSchema.safeParse({ threshold: 9 }).success).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolledUpRecord } from '#shared/analytics/facts.ts';
import type { LogChange } from '#shared/analytics/rollup-store.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Monitors over the real rollups: logs applied to the rollup store (what the change-feed consumer
 * does), monitors evaluated through the rollup reader the schedule uses, at given times.
 */
let service: TestService;
let store: typeof import('#shared/analytics/rollup-store.ts');
let evaluation: typeof import('#shared/monitors/evaluate.ts');
let reader: typeof import('#shared/monitors/rollup-reader.ts');
let monitors: typeof import('#shared/monitors/monitors.ts');
let validation: typeof import('#shared/monitors/validation.ts');

beforeAll(async () => {
  // No bus rules: the events stay on the local bus, where the tests read them.
  service = await startTestService({ eventRules: {} });
  store = await import('#shared/analytics/rollup-store.ts');
  evaluation = await import('#shared/monitors/evaluate.ts');
  reader = await import('#shared/monitors/rollup-reader.ts');
  monitors = await import('#shared/monitors/monitors.ts');
  validation = await import('#shared/monitors/validation.ts');
});
afterAll(() => service?.stop());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = Date.UTC(2026, 10, 28, 12, 0);

const log = (at: number, overrides: Partial<RolledUpRecord> = {}): RolledUpRecord => ({
  provider: 'openai',
  model: 'gpt-4o',
  tags: [],
  metadata: {},
  prompt_id: null,
  prompt_name: null,
  prompt_version_number: null,
  input_tokens: 100,
  output_tokens: 20,
  price: 0.01,
  status: 'SUCCESS',
  error_type: null,
  request_start_time: at,
  request_end_time: at + 200,
  ...overrides,
});

let workspace = 7_000;
let sequence = 0;
async function logged(workspaceId: number, records: RolledUpRecord[]) {
  const changes: LogChange[] = records.map((after) => ({
    shard: 'shard-monitors',
    sequence: String(++sequence),
    workspaceId,
    after,
  }));
  const { failedSequences } = await store.applyLogChanges(changes);
  expect(failedSequences).toEqual([]);
}

async function monitorIn(workspaceId: number, body: Record<string, unknown>) {
  const { monitor } = await monitors.createMonitor(
    workspaceId,
    validation.createMonitorSchema.parse({ name: 'watch', ...body }),
  );
  return monitor.id;
}

const eventsOf = (monitorId: number) =>
  service.messaging.events
    .map((event) => event.detail as { event_type: string; details: Record<string, any> })
    .filter((detail) => detail.details.monitor_id === monitorId)
    .map((detail) => [detail.event_type, detail.details.group_value, detail.details.value]);

const evaluateAt = (now: number) => evaluation.evaluateMonitors(reader.readMonitorWindow, now);

describe('monitors over the rollups', () => {
  it('any single user over $5 in 24 h: the one user who is triggers, and resolves once the window passes', async () => {
    const ws = ++workspace;
    const id = await monitorIn(ws, {
      metric: 'cost',
      group_by: 'metadata.user_id',
      window_minutes: 1440,
      threshold: 5,
    });
    await logged(ws, [
      log(NOW - 20 * HOUR, { price: 3, metadata: { user_id: 'alice' } }),
      log(NOW - 2 * HOUR, { price: 2.5, metadata: { user_id: 'alice' } }),
      log(NOW - 1 * HOUR, { price: 4.99, metadata: { user_id: 'bob' } }),
      // Older than the window: does not count.
      log(NOW - 30 * HOUR, { price: 9, metadata: { user_id: 'bob' } }),
    ]);
    await evaluateAt(NOW);
    await evaluateAt(NOW + MINUTE);
    expect(eventsOf(id)).toEqual([['monitor_triggered', 'alice', 5.5]]);

    // 5 h later Alice's first $3 (20 h before) has left the window: $2.50 is under the limit.
    await evaluateAt(NOW + 5 * HOUR);
    expect(eventsOf(id)).toEqual([
      ['monitor_triggered', 'alice', 5.5],
      ['monitor_resolved', 'alice', 2.5],
    ]);
  });

  it('a filter on a model: the error rate of gpt-4o only, over 5 minutes', async () => {
    const ws = ++workspace;
    const id = await monitorIn(ws, {
      metric: 'error_rate',
      filter: { dimension: 'model', value: 'gpt-4o' },
      window_minutes: 5,
      threshold: 0.25,
      comparison: 'gte',
      cooldown_minutes: 0,
    });
    const failed = { status: 'ERROR', error_type: 'timeout' } as const;
    await logged(ws, [
      log(NOW - 3 * MINUTE, failed),
      log(NOW - 3 * MINUTE),
      log(NOW - 2 * MINUTE),
      // Another model's errors are not this monitor's.
      log(NOW - 2 * MINUTE, { ...failed, model: 'gpt-4o-mini' }),
      log(NOW - 2 * MINUTE, { ...failed, model: 'gpt-4o-mini' }),
    ]);
    await evaluateAt(NOW);
    expect(eventsOf(id)).toEqual([['monitor_triggered', null, 1 / 3]]);
    await evaluateAt(NOW + 20 * MINUTE);
    expect(eventsOf(id)).toEqual([
      ['monitor_triggered', null, 1 / 3],
      ['monitor_resolved', null, null],
    ]);
  });

  it('latency p95 and tokens come from the merged buckets', async () => {
    const ws = ++workspace;
    const latency = await monitorIn(ws, { metric: 'latency_p95', window_minutes: 60, threshold: 1000 });
    const tokens = await monitorIn(ws, { metric: 'tokens', window_minutes: 60, threshold: 2000 });
    await logged(
      ws,
      Array.from({ length: 20 }, (_, i) => {
        const at = NOW - (i + 1) * 2 * MINUTE;
        return log(at, { request_end_time: at + (i < 18 ? 100 : 5000) });
      }),
    );
    await evaluateAt(NOW);
    const [[, , p95]] = eventsOf(latency) as [[string, null, number]];
    expect(p95).toBeGreaterThan(4900);
    expect(p95).toBeLessThan(5100);
    expect(eventsOf(tokens)).toEqual([['monitor_triggered', null, 2400]]);
  });
});

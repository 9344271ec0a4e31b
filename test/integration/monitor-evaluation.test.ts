import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evaluateMonitors, MAX_TRANSITIONS_PER_EVALUATION } from '#shared/monitors/evaluate.ts';
import { createMonitor } from '#shared/monitors/monitors.ts';
import { getMonitor, listMonitors, readStates, writeTransition } from '#shared/monitors/repository.ts';
import {
  EMPTY_TOTALS,
  type RollupWindowReader,
  type WindowQuery,
  type WindowTotals,
} from '#shared/monitors/rollup-port.ts';
import { createMonitorSchema } from '#shared/monitors/validation.ts';
import { logger } from '#shared/platform/logger.ts';
import { deleteLabel, moveLabel } from '#shared/prompts/labels.ts';
import { publishPromptTemplate } from '#shared/prompts/publish.ts';
import { labelOf } from '#shared/prompts/records.ts';
import { getHead } from '#shared/prompts/repository.ts';
import { publishBodySchema } from '#shared/prompts/schemas.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publishBody } from '#test/support/prompts.ts';

/**
 * The evaluator against dynalite and the local bus, with a fake rollup reader and a fake clock (each
 * evaluation is given its time): crossings, resolves, cool-down, groups on their own, and one event
 * per transition however evaluations overlap or fail half-way.
 */
let service: TestService;
beforeAll(async () => {
  // No bus rules: the events stay on the local bus, where the tests read them.
  service = await startTestService({ eventRules: {} });
});
afterAll(async () => {
  await service?.stop();
});

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

/** What the fake rollups hold, per workspace: the window's totals, and per group value. */
interface FakeRollups {
  totals?: Partial<WindowTotals>;
  groups?: Record<string, Partial<WindowTotals>>;
}
const rollups = new Map<number, FakeRollups>();
const asked: { workspaceId: number; window: { fromMs: number; toMs: number }; query: WindowQuery }[] = [];
const reader: RollupWindowReader = async (workspaceId, window, query) => {
  asked.push({ workspaceId, window, query });
  const data = rollups.get(workspaceId) ?? {};
  return {
    window,
    totals: { ...EMPTY_TOTALS, ...data.totals },
    groups: Object.entries(data.groups ?? {}).map(([value, totals]) => ({
      value,
      totals: { ...EMPTY_TOTALS, ...totals },
    })),
    itemsRead: 3,
  };
};

let nextWorkspace = 9_000;
/** A monitor of a workspace of its own (so the tests' rollups never meet). */
async function monitorOf(body: Record<string, unknown>) {
  const workspaceId = ++nextWorkspace;
  const { monitor } = await createMonitor(
    workspaceId,
    createMonitorSchema.parse({ name: 'watch', window_minutes: 60, threshold: 5, ...body }),
  );
  return { workspaceId, monitorId: monitor.id };
}

/** The monitor events the bus received for one monitor, in order. */
function eventsOf(monitorId: number) {
  return service.messaging.events
    .map((event) => event.detail as { event_id: string; event_type: string; details: Record<string, any> })
    .filter((detail) => detail.details.monitor_id === monitorId);
}
const summary = (monitorId: number) =>
  eventsOf(monitorId).map((event) => [event.event_type, event.details.group_value, event.details.value]);

describe('a monitor over the whole workspace', () => {
  it('triggers once when the value crosses, stays quiet while it holds, resolves once when it falls back', async () => {
    const { workspaceId, monitorId } = await monitorOf({ metric: 'cost', threshold: 5 });
    rollups.set(workspaceId, { totals: { requests: 3, cost: 4.5 } });
    await evaluateMonitors(reader, T0);
    expect(eventsOf(monitorId)).toEqual([]);

    rollups.set(workspaceId, { totals: { requests: 4, cost: 6.25 } });
    await evaluateMonitors(reader, T0 + MINUTE);
    await evaluateMonitors(reader, T0 + 2 * MINUTE);
    expect(summary(monitorId)).toEqual([['monitor_triggered', null, 6.25]]);
    expect(eventsOf(monitorId)[0]?.details).toEqual({
      monitor_id: monitorId,
      monitor_name: 'watch',
      metric: 'cost',
      comparison: 'gt',
      threshold: 5,
      window_minutes: 60,
      filter: null,
      group_by: null,
      group_value: null,
      value: 6.25,
      window_start: new Date(T0 + MINUTE - 60 * MINUTE).toISOString(),
      window_end: new Date(T0 + MINUTE).toISOString(),
      triggered_at: new Date(T0 + MINUTE).toISOString(),
    });

    rollups.set(workspaceId, { totals: { requests: 4, cost: 5 } });
    await evaluateMonitors(reader, T0 + 3 * MINUTE);
    await evaluateMonitors(reader, T0 + 4 * MINUTE);
    expect(summary(monitorId)).toEqual([
      ['monitor_triggered', null, 6.25],
      ['monitor_resolved', null, 5],
    ]);
    expect(eventsOf(monitorId)[1]?.details).toMatchObject({
      triggered_at: new Date(T0 + MINUTE).toISOString(),
      resolved_at: new Date(T0 + 3 * MINUTE).toISOString(),
    });
  });

  it('asks the rollups for its window of whole minutes, its filter, and its workspace only', async () => {
    const { workspaceId } = await monitorOf({
      metric: 'error_rate',
      threshold: 0.1,
      window_minutes: 5,
      filter: { dimension: 'model', value: 'gpt-4o' },
    });
    asked.length = 0;
    await evaluateMonitors(reader, T0 + 30_500);
    expect(asked.filter((call) => call.workspaceId === workspaceId)).toEqual([
      {
        workspaceId,
        window: { fromMs: T0 - 5 * MINUTE, toMs: T0 },
        query: { filter: { dimension: 'model', value: 'gpt-4o' }, groupBy: undefined },
      },
    ]);
  });

  it('a turned-off monitor is not evaluated; turned on again, it is', async () => {
    const { workspaceId, monitorId } = await monitorOf({
      metric: 'requests',
      threshold: 10,
      is_active: false,
    });
    rollups.set(workspaceId, { totals: { requests: 50 } });
    asked.length = 0;
    await evaluateMonitors(reader, T0);
    expect(asked.some((call) => call.workspaceId === workspaceId)).toBe(false);
    expect(eventsOf(monitorId)).toEqual([]);
    const { changeMonitor } = await import('#shared/monitors/monitors.ts');
    await changeMonitor(workspaceId, monitorId, { is_active: true });
    await evaluateMonitors(reader, T0 + MINUTE);
    expect(summary(monitorId)).toEqual([['monitor_triggered', null, 50]]);
  });
});

describe('a monitor with a group_by (per-user limits)', () => {
  it('each user triggers and resolves on its own', async () => {
    const { workspaceId, monitorId } = await monitorOf({
      metric: 'cost',
      group_by: 'metadata.user_id',
      window_minutes: 1440,
      threshold: 5,
    });
    rollups.set(workspaceId, { groups: { alice: { cost: 7 }, bob: { cost: 1 } } });
    await evaluateMonitors(reader, T0);
    expect(summary(monitorId)).toEqual([['monitor_triggered', 'alice', 7]]);

    rollups.set(workspaceId, { groups: { alice: { cost: 8 }, bob: { cost: 5.5 } } });
    await evaluateMonitors(reader, T0 + MINUTE);
    expect(summary(monitorId)).toEqual([
      ['monitor_triggered', 'alice', 7],
      ['monitor_triggered', 'bob', 5.5],
    ]);

    // Alice's requests left the window (no rollup row for her): she resolves; Bob stays triggered.
    rollups.set(workspaceId, { groups: { bob: { cost: 6 } } });
    await evaluateMonitors(reader, T0 + 2 * MINUTE);
    expect(summary(monitorId)).toEqual([
      ['monitor_triggered', 'alice', 7],
      ['monitor_triggered', 'bob', 5.5],
      ['monitor_resolved', 'alice', 0],
    ]);
    const states = await readStates(workspaceId, monitorId);
    expect(
      [...states.values()]
        .map((state) => [state.group, state.status])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['alice', 'ok'],
      ['bob', 'triggered'],
    ]);
  });

  it('many groups crossing at once transition at most 100 per evaluation; the rest at the next ones', async () => {
    const { workspaceId, monitorId } = await monitorOf({
      metric: 'requests',
      group_by: 'model',
      window_minutes: 60,
      threshold: 1,
    });
    const groups = MAX_TRANSITIONS_PER_EVALUATION + 5;
    rollups.set(workspaceId, {
      groups: Object.fromEntries(Array.from({ length: groups }, (_, i) => [`model-${i}`, { requests: 2 }])),
    });
    await evaluateMonitors(reader, T0);
    expect(eventsOf(monitorId)).toHaveLength(MAX_TRANSITIONS_PER_EVALUATION);
    await evaluateMonitors(reader, T0 + MINUTE);
    await evaluateMonitors(reader, T0 + 2 * MINUTE);
    const values = eventsOf(monitorId).map((event) => event.details.group_value);
    expect(values).toHaveLength(groups);
    expect(new Set(values).size).toBe(groups);
  });
});

describe('the cool-down', () => {
  it('a monitor that resolved does not trigger again until the cool-down since its trigger is over', async () => {
    const { workspaceId, monitorId } = await monitorOf({
      metric: 'requests',
      threshold: 10,
      cooldown_minutes: 30,
    });
    const at = (requests: number, minute: number) => {
      rollups.set(workspaceId, { totals: { requests } });
      return evaluateMonitors(reader, T0 + minute * MINUTE);
    };
    await at(20, 0); // triggers
    await at(5, 1); // resolves
    await at(20, 2); // crosses again within 30 minutes of the trigger: quiet
    await at(20, 29);
    expect(summary(monitorId).map(([type]) => type)).toEqual(['monitor_triggered', 'monitor_resolved']);
    await at(20, 30); // the cool-down is over and it still crosses
    expect(summary(monitorId).map(([type]) => type)).toEqual([
      'monitor_triggered',
      'monitor_resolved',
      'monitor_triggered',
    ]);
  });
});

describe('one event per transition', () => {
  it('overlapping evaluations (a retried or slow schedule) make one transition and one event', async () => {
    const { workspaceId, monitorId } = await monitorOf({ metric: 'tokens', threshold: 1000 });
    rollups.set(workspaceId, { totals: { requests: 1, tokens: 5000 } });
    await Promise.all([
      evaluateMonitors(reader, T0),
      evaluateMonitors(reader, T0),
      evaluateMonitors(reader, T0 + 20_000),
      evaluateMonitors(reader, T0 + MINUTE),
    ]);
    expect(summary(monitorId)).toEqual([['monitor_triggered', null, 5000]]);
    const states = await readStates(workspaceId, monitorId);
    expect([...states.values()]).toMatchObject([{ status: 'triggered', seq: 1, pendingEvent: null }]);
  });

  it('an evaluation that died between its state write and its event: the next one sends the event, once', async () => {
    const { workspaceId, monitorId } = await monitorOf({ metric: 'cost', threshold: 1 });
    const monitor = await getMonitor(workspaceId, monitorId);
    expect(monitor).toBeDefined();
    // What the dead evaluation left: the transition written with its event, the event never recorded.
    const event = {
      type: 'monitor_triggered',
      key: `${monitorId}\nALL\n1\n${T0}`,
      details: {
        monitor_id: monitorId,
        monitor_name: 'watch',
        metric: 'cost',
        comparison: 'gt',
        threshold: 1,
        window_minutes: 60,
        filter: null,
        group_by: null,
        group_value: null,
        value: 2,
        window_start: new Date(T0 - 60 * MINUTE).toISOString(),
        window_end: new Date(T0).toISOString(),
        triggered_at: new Date(T0).toISOString(),
      },
    };
    const written = await writeTransition(workspaceId, monitorId, {
      group: null,
      transition: 'triggered',
      fromSeq: 0,
      now: T0,
      cooldownMinutes: 60,
      event: JSON.stringify(event),
      value: 2,
    });
    expect(written).toBe(true);
    rollups.set(workspaceId, { totals: { requests: 1, cost: 2 } });
    await Promise.all([evaluateMonitors(reader, T0 + MINUTE), evaluateMonitors(reader, T0 + MINUTE)]);
    await evaluateMonitors(reader, T0 + 2 * MINUTE);
    expect(summary(monitorId)).toEqual([['monitor_triggered', null, 2]]);
    const [state] = [...(await readStates(workspaceId, monitorId)).values()];
    expect(state).toMatchObject({ status: 'triggered', pendingEvent: null });
  });

  it('a monitor whose rollup read fails is counted and logged; the others are still evaluated', async () => {
    const { workspaceId, monitorId } = await monitorOf({ metric: 'requests', threshold: 1 });
    const broken = await monitorOf({ metric: 'requests', threshold: 1 });
    rollups.set(workspaceId, { totals: { requests: 2 } });
    const failing: RollupWindowReader = (ws, window, query) =>
      ws === broken.workspaceId ? Promise.reject(new Error('rollups down')) : reader(ws, window, query);
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const run = await evaluateMonitors(failing, T0);
    expect(run.failed).toBeGreaterThanOrEqual(1);
    expect(logged).toHaveBeenCalledWith(
      'Monitor evaluation failed',
      expect.objectContaining({ workspaceId: broken.workspaceId, monitorId: broken.monitorId }),
    );
    logged.mockRestore();
    expect(summary(monitorId)).toEqual([['monitor_triggered', null, 2]]);
  });
});

describe('a filter on a prompt label', () => {
  const labelled = (value: string) =>
    createMonitorSchema.parse({
      name: 'prod requests',
      metric: 'requests',
      threshold: 1,
      window_minutes: 60,
      filter: { dimension: 'prompt_label', value },
    });

  it('refuses at creation a prompt or label that does not exist, writing nothing', async () => {
    const workspaceId = ++nextWorkspace;
    await publishPromptTemplate(workspaceId, publishBodySchema.parse(publishBody('support-bot')));
    for (const value of ['support-bot:canary', 'no-such-bot:prod']) {
      await expect(createMonitor(workspaceId, labelled(value))).rejects.toMatchObject({
        status: 422,
        detail: [expect.objectContaining({ loc: ['body', 'filter', 'value'] })],
      });
    }
    expect(await listMonitors(workspaceId)).toEqual([]);
  });

  it('watches the version the label points at now, from the state it is in; a deleted label pauses it', async () => {
    const workspaceId = ++nextWorkspace;
    const publish = (labels: string[]) =>
      publishPromptTemplate(
        workspaceId,
        publishBodySchema.parse(publishBody('support-bot', undefined, { release_labels: labels })),
      );
    await publish(['prod']);
    await publish([]);
    const { monitor } = await createMonitor(workspaceId, labelled('support-bot:prod'));
    expect(monitor.filter).toEqual({ dimension: 'prompt_label', value: 'support-bot:prod' });
    const filtersAsked = () =>
      asked.filter((call) => call.workspaceId === workspaceId).map((call) => call.query.filter);

    asked.length = 0;
    rollups.set(workspaceId, { totals: { requests: 2 } });
    await evaluateMonitors(reader, T0);
    expect(filtersAsked()).toEqual([{ dimension: 'prompt_version', value: 'support-bot@1' }]);
    expect(summary(monitor.id)).toEqual([['monitor_triggered', null, 2]]);

    // Moved to version 2: watched there from the next evaluation, which resolves the trigger of version 1.
    const prod = labelOf((await getHead(workspaceId, 'support-bot'))!, 'prod')!;
    await moveLabel(workspaceId, prod.id, 2);
    asked.length = 0;
    rollups.set(workspaceId, { totals: { requests: 0 } });
    await evaluateMonitors(reader, T0 + MINUTE);
    expect(filtersAsked()).toEqual([{ dimension: 'prompt_version', value: 'support-bot@2' }]);
    expect(summary(monitor.id)).toEqual([
      ['monitor_triggered', null, 2],
      ['monitor_resolved', null, 0],
    ]);

    // The label deleted: nothing to watch, nothing read, no event, a warning.
    await deleteLabel(workspaceId, prod.id);
    const warned = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    asked.length = 0;
    rollups.set(workspaceId, { totals: { requests: 5 } });
    const run = await evaluateMonitors(reader, T0 + 2 * MINUTE);
    expect(warned).toHaveBeenCalledWith(
      'Monitor prompt label not found',
      expect.objectContaining({ workspaceId, monitorId: monitor.id, promptLabel: 'support-bot:prod' }),
    );
    warned.mockRestore();
    expect(run.failed).toBe(0);
    expect(filtersAsked()).toEqual([]);
    expect(summary(monitor.id)).toHaveLength(2);
  });
});

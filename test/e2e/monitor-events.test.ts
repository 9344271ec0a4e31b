import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publish, uniqueName } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';

/**
 * A monitor end to end through the local runtime: logs sent to /log-request (with their price), the
 * change feed rolling them up, the `monitor-evaluation` schedule run by `runSchedules()`, and the
 * event delivered by the signed webhooks to a loopback receiver. The clock is faked (Date only, for the
 * whole process: the service runs in it) to let the monitor's window pass; timers stay real.
 */
const MONITORS = '/api/public/v2/monitors';
const WEBHOOKS = '/api/public/v2/webhooks';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let service: TestService;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  service = await startTestService({ timeScale: 0.001 });
});
afterAll(async () => {
  vi.useRealTimers();
  await service?.stop();
  await receiver?.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
});

const eventually = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 20 });
const to = (path: string) => receiver.received.filter((request) => request.path === path);

/** Runs every schedule (the monitor evaluation among them) and waits for what they set going. */
async function evaluate() {
  await service.runSchedules();
  await service.messaging.idle();
}

async function logFor(user: string, price: number, at: number, key?: string) {
  const answer = await service.call('POST', '/log-request', {
    key,
    body: logRequestBody({
      price,
      metadata: { user_id: user },
      request_start_time: new Date(at).toISOString(),
      request_end_time: new Date(at + 1_500).toISOString(),
    }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

describe('a per-user spend monitor', () => {
  it('fires once, signed, for the one user over $5 in 24 h, and resolves once the day has passed', async () => {
    const start = Math.floor(Date.now() / MINUTE) * MINUTE + 30_000;
    vi.useFakeTimers({ toFake: ['Date'], now: start });

    const hook = await service.call('POST', WEBHOOKS, {
      body: { url: `${receiver.url}/monitors`, event_types: ['monitor_triggered', 'monitor_resolved'] },
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret as string;
    const created = await service.call('POST', MONITORS, {
      body: {
        name: 'any user over $5 a day',
        metric: 'cost',
        group_by: 'metadata.user_id',
        window_minutes: 1440,
        threshold: 5,
        comparison: 'gt',
      },
    });
    expect(created.status).toBe(201);
    const monitorId = created.body.monitor.id as number;

    // Another workspace, with its own webhook and the same spend, sees only its own.
    const other = await service.otherWorkspaceKey('monitor-events-other');
    await service.call('POST', WEBHOOKS, {
      key: other,
      body: { url: `${receiver.url}/other`, event_types: ['monitor_triggered', 'monitor_resolved'] },
    });
    expect((await service.call('GET', MONITORS, { key: other })).body.monitors).toEqual([]);
    const stateOf = async (key?: string) => service.call('GET', `${MONITORS}/${monitorId}/state`, { key });
    expect((await stateOf(other)).status).toBe(404);
    expect((await stateOf()).body.state).toEqual({
      status: 'ok',
      triggered_groups: 0,
      last_evaluated_at: null,
      last_value: null,
      last_group_value: null,
      recent_evaluations: [],
      recent_transitions: [],
    });
    await logFor('alice', 9, start - 10 * MINUTE, other);

    await logFor('alice', 3, start - 3 * HOUR);
    await logFor('alice', 2.75, start - 2 * MINUTE);
    await logFor('bob', 4.5, start - 5 * MINUTE);
    await service.changes.idle();

    await evaluate();
    const [triggered] = await eventually(() => {
      const got = to('/monitors');
      expect(got).toHaveLength(1);
      return got;
    });
    const payload = new Webhook(secret).verify(triggered!.body, triggered!.headers as Record<string, string>);
    expect(payload).toEqual({
      event_type: 'monitor_triggered',
      details: {
        monitor_id: monitorId,
        monitor_name: 'any user over $5 a day',
        metric: 'cost',
        comparison: 'gt',
        threshold: 5,
        window_minutes: 1440,
        filter: null,
        group_by: 'metadata.user_id',
        group_value: 'alice',
        value: 5.75,
        window_start: expect.any(String),
        window_end: expect.any(String),
        triggered_at: new Date(start).toISOString(),
      },
      user_id: null,
      user_name: null,
      user_email: null,
      workspace_id: service.workspaceId,
      timestamp: expect.any(String),
    });

    // The evaluator's state: triggered by Alice, the value of the group nearest to crossing.
    expect((await stateOf()).body.state).toMatchObject({
      status: 'triggered',
      triggered_groups: 1,
      last_evaluated_at: new Date(start).toISOString(),
      last_value: 5.75,
      last_group_value: 'alice',
    });

    // Still over the limit a minute later: no second event.
    vi.setSystemTime(start + MINUTE);
    await evaluate();
    expect(to('/monitors')).toHaveLength(1);

    // A day later every request has left the window: Alice's spend is back to 0.
    vi.setSystemTime(start + 25 * HOUR);
    await evaluate();
    const resolved = await eventually(() => {
      const got = to('/monitors');
      expect(got).toHaveLength(2);
      return got[1]!;
    });
    expect(
      new Webhook(secret).verify(resolved.body, resolved.headers as Record<string, string>),
    ).toMatchObject({
      event_type: 'monitor_resolved',
      details: {
        monitor_id: monitorId,
        group_value: 'alice',
        value: 0,
        triggered_at: new Date(start).toISOString(),
        resolved_at: new Date(start + 25 * HOUR).toISOString(),
      },
    });
    await evaluate();
    expect(to('/monitors')).toHaveLength(2);
    const state = (await stateOf()).body.state;
    expect(state).toMatchObject({
      status: 'ok',
      triggered_groups: 0,
      last_value: 0,
      last_group_value: 'alice',
    });
    expect(state.recent_evaluations.map((point: { value: number }) => point.value)).toEqual([
      5.75, 5.75, 0, 0,
    ]);
    expect(state.recent_transitions).toEqual([
      { transition: 'triggered', at: new Date(start).toISOString(), value: 5.75, group_value: 'alice' },
      {
        transition: 'resolved',
        at: new Date(start + 25 * HOUR).toISOString(),
        value: 0,
        group_value: 'alice',
      },
    ]);
    // The other workspace has no monitor: its webhook got nothing.
    expect(to('/other')).toEqual([]);
  });
});

describe('a monitor on a prompt label', () => {
  it('counts the requests of the version the label points at, not those of another version', async () => {
    const start = Math.floor(Date.now() / MINUTE) * MINUTE + 30_000;
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const name = uniqueName('support-bot');
    await publish(service, name, completion('one'), { release_labels: ['prod'] });
    await publish(service, name, completion('two'));
    await service.call('POST', WEBHOOKS, {
      body: { url: `${receiver.url}/labels`, event_types: ['monitor_triggered'] },
    });
    const created = await service.call('POST', MONITORS, {
      body: {
        name: 'prod traffic',
        metric: 'requests',
        filter: { dimension: 'prompt_label', value: `${name}:prod` },
        window_minutes: 60,
        threshold: 2,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const logVersion = async (version: number) => {
      const answer = await service.call('POST', '/log-request', {
        body: logRequestBody({
          prompt_name: name,
          prompt_version_number: version,
          request_start_time: new Date(start - 5 * MINUTE).toISOString(),
          request_end_time: new Date(start - 5 * MINUTE + 800).toISOString(),
        }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    };
    // Version 2 (not labelled prod) is busy: the monitor does not see it.
    for (let i = 0; i < 4; i++) await logVersion(2);
    await service.changes.idle();
    await evaluate();
    expect(to('/labels')).toEqual([]);

    // Three requests of version 1, which prod points at: over 2, triggered.
    for (let i = 0; i < 3; i++) await logVersion(1);
    await service.changes.idle();
    vi.setSystemTime(start + MINUTE);
    await evaluate();
    const [triggered] = await eventually(() => {
      const got = to('/labels');
      expect(got).toHaveLength(1);
      return got;
    });
    expect(JSON.parse(triggered!.body)).toMatchObject({
      event_type: 'monitor_triggered',
      details: {
        monitor_id: created.body.monitor.id,
        filter: { dimension: 'prompt_label', value: `${name}:prod` },
        value: 3,
      },
    });
  });
});

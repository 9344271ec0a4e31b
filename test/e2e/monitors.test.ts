import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publish, uniqueName } from '#test/support/prompts.ts';

/** Monitors through the local gateway: registration, validation, permissions and isolation. */
const MONITORS = '/api/public/v2/monitors';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

const perUserSpend = {
  name: 'any user over $5 a day',
  metric: 'cost',
  group_by: 'metadata.user_id',
  window_minutes: 1440,
  threshold: 5,
  comparison: 'gt',
};

async function create(body: Record<string, unknown>, key?: string) {
  const created = await service.call('POST', MONITORS, { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.monitor as { id: number } & Record<string, unknown>;
}

describe('registration', () => {
  it('creates a per-user spend limit, lists it, reads it, changes it and deletes it', async () => {
    const monitor = await create(perUserSpend);
    expect(monitor).toEqual({
      id: expect.any(Number),
      name: 'any user over $5 a day',
      metric: 'cost',
      filter: null,
      group_by: 'metadata.user_id',
      window_minutes: 1440,
      threshold: 5,
      comparison: 'gt',
      cooldown_minutes: 60,
      is_active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await service.call('GET', MONITORS);
    expect(list.body.monitors).toContainEqual(monitor);
    expect((await service.call('GET', `${MONITORS}/${monitor.id}`)).body).toEqual({ success: true, monitor });

    const patched = await service.call('PATCH', `${MONITORS}/${monitor.id}`, {
      body: { threshold: 10, cooldown_minutes: 0, is_active: false },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.monitor).toMatchObject({ threshold: 10, cooldown_minutes: 0, is_active: false });
    expect((await service.call('GET', `${MONITORS}/${monitor.id}`)).body.monitor.threshold).toBe(10);

    expect((await service.call('DELETE', `${MONITORS}/${monitor.id}`)).body).toEqual({ success: true });
    expect((await service.call('GET', `${MONITORS}/${monitor.id}`)).status).toBe(404);
    expect((await service.call('DELETE', `${MONITORS}/${monitor.id}`)).status).toBe(404);
  });

  it('a filter on a model, a prompt or a metadata value watches only those requests', async () => {
    const monitor = await create({
      name: 'gpt-4o error rate',
      metric: 'error_rate',
      filter: { dimension: 'model', value: 'gpt-4o' },
      window_minutes: 5,
      threshold: 0.05,
      comparison: 'gte',
    });
    expect(monitor).toMatchObject({ filter: { dimension: 'model', value: 'gpt-4o' }, group_by: null });
    await service.call('DELETE', `${MONITORS}/${monitor.id}`);
  });

  it('a filter on a prompt label needs <prompt name>:<label> of a label of this workspace', async () => {
    const name = uniqueName('support-bot');
    await publish(service, name, completion('one'), { release_labels: ['prod'] });
    const onLabel = (value: string) => ({
      name: 'prod error rate',
      metric: 'error_rate',
      filter: { dimension: 'prompt_label', value },
      window_minutes: 5,
      threshold: 0.05,
    });
    const monitor = await create(onLabel(`${name}:prod`));
    expect(monitor.filter).toEqual({ dimension: 'prompt_label', value: `${name}:prod` });

    const other = await service.otherWorkspaceKey('monitor-labels-other');
    const refused: [string, RegExp, string | undefined][] = [
      [name, /<prompt name>:<label>/, undefined],
      [`${name}:canary`, /has a label canary/, undefined],
      [`${name}-nope:prod`, /no prompt template named/, undefined],
      // Another workspace's prompt is no prompt of this one.
      [`${name}:prod`, /no prompt template named/, other],
    ];
    for (const [value, message, key] of refused) {
      const answer = await service.rejected('POST', MONITORS, { body: onLabel(value), key });
      expect(answer.status, value).toBe(422);
      expect(answer.body.message, value).toMatch(message);
    }
    expect((await service.call('GET', MONITORS, { key: other })).body.monitors).toEqual([]);
    const patched = await service.rejected('PATCH', `${MONITORS}/${monitor.id}`, {
      body: { filter: { dimension: 'prompt_label', value: `${name}:staging` } },
    });
    expect(patched.status).toBe(422);
    await service.call('DELETE', `${MONITORS}/${monitor.id}`);
  });

  it('refuses what the rollups cannot answer with a 422 naming the field, writing nothing', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...perUserSpend, metric: 'p99' }, /metric/],
      [{ ...perUserSpend, window_minutes: 4 }, /window_minutes/],
      [{ ...perUserSpend, window_minutes: 30 * 24 * 60 + 1 }, /window_minutes/],
      [{ ...perUserSpend, comparison: 'eq' }, /comparison/],
      [{ ...perUserSpend, group_by: 'input_text' }, /group_by/],
      [{ ...perUserSpend, filter: { dimension: 'model', value: 'gpt-4o' } }, /group_by.*filter/],
      [{ ...perUserSpend, group_by: null, metric: 'error_rate', threshold: 5 }, /threshold/],
      [{ ...perUserSpend, threshold: -1 }, /threshold/],
      [{ ...perUserSpend, name: '' }, /name/],
      [{ ...perUserSpend, colour: 'red' }, /colour/],
    ];
    for (const [body, message] of bad) {
      const answer = await service.rejected('POST', MONITORS, { body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.message, JSON.stringify(body)).toMatch(message);
    }
    const monitor = await create({ ...perUserSpend, group_by: null, metric: 'error_rate', threshold: 0.1 });
    for (const body of [{ group_by: 'model' }, { metric: 'cost' }, { threshold: 2 }, {}]) {
      const answer = await service.rejected('PATCH', `${MONITORS}/${monitor.id}`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
    }
    await service.call('DELETE', `${MONITORS}/${monitor.id}`);
  });

  it('allows at most 100 monitors per workspace', async () => {
    const key = await service.otherWorkspaceKey('monitor-limit');
    const ids: number[] = [];
    for (let i = 0; i < 100; i++) ids.push((await create({ ...perUserSpend, name: `m${i}` }, key)).id);
    const refused = await service.rejected('POST', MONITORS, { body: perUserSpend, key });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/at most 100/);
    await service.call('DELETE', `${MONITORS}/${ids[0]}`, { key });
    await create(perUserSpend, key);
  });
});

describe('who may see and change monitors', () => {
  it('a read-only key reads monitors but cannot create, change or delete one', async () => {
    const monitor = await create(perUserSpend);
    const reader = await service.keyWithPermissions({ monitors: 'read' });
    expect((await service.call('GET', MONITORS, { key: reader })).status).toBe(200);
    expect((await service.call('GET', `${MONITORS}/${monitor.id}`, { key: reader })).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', MONITORS, perUserSpend],
      ['PATCH', `${MONITORS}/${monitor.id}`, { threshold: 1 }],
      ['DELETE', `${MONITORS}/${monitor.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      expect((await service.rejected(method, path, { key: reader, body })).status, method).toBe(403);
    }
    const none = await service.keyWithPermissions({ request_logs: 'edit' });
    expect((await service.call('GET', MONITORS, { key: none })).status).toBe(403);
    await service.call('DELETE', `${MONITORS}/${monitor.id}`);
  });

  it("another workspace sees none of this workspace's monitors, and its ids are 404 there", async () => {
    const monitor = await create(perUserSpend);
    const other = await service.otherWorkspaceKey('monitor-isolation');
    expect((await service.call('GET', MONITORS, { key: other })).body.monitors).toEqual([]);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { threshold: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await service.rejected(method, `${MONITORS}/${monitor.id}`, { key: other, body });
      expect(answer.status, method).toBe(404);
    }
    expect((await service.call('GET', `${MONITORS}/${monitor.id}`)).body.monitor).toEqual(monitor);
    await service.call('DELETE', `${MONITORS}/${monitor.id}`);
  });
});

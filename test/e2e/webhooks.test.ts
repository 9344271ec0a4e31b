import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_REDELIVERY_AFTER_ENV } from '#shared/events/sweep.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '#test/support/receiver.ts';
import { publishedDataset } from '#test/support/reports.ts';

/**
 * Webhooks end to end: the local gateway, the bus rule's fan-out queue, the delivery queue and worker,
 * the guarded outbound client, and a loopback receiver (allowed through OUTBOUND_ALLOWED_HOSTS). The
 * local runtime scales every queue delay by `timeScale`, so the retry schedule (5 s, 5 min, ...) runs
 * in milliseconds; OUTBOUND_TIMEOUT_MS is short for the receiver that never answers. The sweep of
 * unacknowledged events runs when a test calls `runSchedules`.
 */
const WEBHOOKS = '/api/public/v2/webhooks';
/** An event type no test produces: webhooks that only get the test events they are sent. */
const QUIET = ['dataset_version_created_from_filter_params_failed'];

let service: TestService;
let receiver: Receiver;
let receiverUrl: string;
let received: ReceivedRequest[] = [];
const hits = new Map<string, number>();
const hanging = new Set<ServerResponse>();

function answer(path: string, response: ServerResponse) {
  const count = (hits.get(path) ?? 0) + 1;
  hits.set(path, count);
  if (path.startsWith('/flaky'))
    return response.writeHead(count <= 2 ? 500 : 200).end(count <= 2 ? 'boom' : 'ok');
  if (path.startsWith('/gone')) return response.writeHead(410).end('gone');
  if (path.startsWith('/hang')) return void hanging.add(response);
  if (path.startsWith('/moved')) return response.writeHead(301, { location: `${receiverUrl}/ok` }).end();
  if (path.startsWith('/big')) return response.writeHead(200).end('x'.repeat(2 * 1024 * 1024));
  response.writeHead(200).end('ok');
}

beforeAll(async () => {
  receiver = await startReceiver(({ path }, response) => answer(path, response));
  ({ url: receiverUrl, received } = receiver);
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  process.env.OUTBOUND_TIMEOUT_MS = '300';
  service = await startTestService({ timeScale: 0.001 });
});

afterAll(async () => {
  await service?.stop();
  for (const response of hanging) response.destroy();
  await receiver?.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
  delete process.env.OUTBOUND_TIMEOUT_MS;
  delete process.env.WEBHOOK_SECRET_OVERLAP_SECONDS;
});

async function register(body: Record<string, unknown>, key?: string) {
  const created = await service.call('POST', WEBHOOKS, { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { webhook: { id: number } & Record<string, unknown>; secret: string };
}

const requestsTo = (path: string) => received.filter((request) => request.path === path);

/** Waits (polling, bounded) until `check` stops throwing, and returns what it returned. */
const eventually = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 20 });

async function deliveries(webhookId: number, query: Record<string, string | number> = {}, key?: string) {
  const answer = await service.call('GET', `${WEBHOOKS}/${webhookId}/deliveries`, { query, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

describe('registration', () => {
  it('creates a webhook and shows its secret once; list and get never show it', async () => {
    const { webhook, secret } = await register({
      url: `${receiverUrl}/registration`,
      description: 'CI hook',
      headers: { Authorization: 'Bearer receiver-token' },
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).toEqual({
      id: expect.any(Number),
      url: `${receiverUrl}/registration`,
      event_types: expect.arrayContaining([
        'prompt_template_version_created',
        'dataset_version_created_by_file',
      ]),
      description: 'CI hook',
      is_active: true,
      headers: { Authorization: '********' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      disabled_reason: null,
      previous_secret_expires_at: null,
    });
    expect(webhook.event_types).not.toContain('webhook_test');
    const got = await service.call('GET', `${WEBHOOKS}/${webhook.id}`);
    const list = await service.call('GET', WEBHOOKS);
    expect(got.body).toEqual({ success: true, webhook });
    expect(list.body.webhooks).toContainEqual(webhook);
    const secretPart = secret.slice('whsec_'.length);
    for (const text of [JSON.stringify(got.body), JSON.stringify(list.body)]) {
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain('receiver-token');
    }

    const patched = await service.call('PATCH', `${WEBHOOKS}/${webhook.id}`, {
      body: { event_types: QUIET, description: null, headers: { 'X-Receiver-Token': 'abc' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({
      event_types: QUIET,
      description: null,
      headers: { 'X-Receiver-Token': '********' },
    });

    const test = await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    expect(test.status).toBe(202);
    const request = await eventually(() => requestsTo('/registration')[0] ?? expect.fail('no request yet'));
    expect(request.headers['x-receiver-token']).toBe('abc');
    expect(request.headers.authorization).toBeUndefined();
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject(
      {
        event_type: 'webhook_test',
        details: { webhook_id: webhook.id, message: expect.any(String) },
        workspace_id: service.workspaceId,
      },
    );

    expect((await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`)).body).toEqual({ success: true });
    expect((await service.call('GET', `${WEBHOOKS}/${webhook.id}`)).status).toBe(404);
    expect((await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`)).status).toBe(404);
  });

  it('refuses bad registrations with a 422 naming the problem, writing nothing', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ url: 'http://example.com/hook' }, /https/],
      [{ url: 'https://user:pass@example.com/hook' }, /url/i],
      [{ url: 'https://169.254.169.254/latest' }, /url/i],
      [{ url: 'https://[::1]/hook' }, /url/i],
      [{ url: 'not a url' }, /url/i],
      [{ url: 'https://example.com', event_types: ['nope'] }, /event_types/],
      [{ url: 'https://example.com', event_types: [] }, /event_types/],
      [{ url: 'https://example.com', headers: { 'Webhook-Signature': 'forged' } }, /cannot be overridden/],
      [{ url: 'https://example.com', headers: { 'X-A': 'a\r\nb' } }, /CR, LF/],
      // Node refuses to send these (ERR_INVALID_CHAR): every delivery would fail.
      [{ url: 'https://example.com', headers: { 'X-A': '5 \u20ac' } }, /headers\.X-A/],
      [{ url: 'https://example.com', headers: { 'X-A': 'a\u0001b' } }, /headers\.X-A/],
      [{ url: 'https://example.com', headers: { 'X-A': 'a\u007fb' } }, /headers\.X-A/],
      // JSON.parse keeps "__proto__" as a plain key; it must not vanish with a 201.
      [{ url: 'https://example.com', headers: JSON.parse('{"__proto__": "x"}') }, /__proto__/],
      [{ url: 'https://example.com', is_active: 'yes' }, /is_active/],
    ];
    for (const [body, message] of bad) {
      const answer = await service.rejected('POST', WEBHOOKS, { body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.message, JSON.stringify(body)).toMatch(message);
    }
    const { webhook } = await register({ url: 'https://example.com/hook', event_types: QUIET });
    const patch = await service.rejected('PATCH', `${WEBHOOKS}/${webhook.id}`, {
      body: { url: 'http://example.com' },
    });
    expect(patch.status).toBe(422);
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('allows at most 20 webhooks per workspace', async () => {
    const key = await service.otherWorkspaceKey('webhook-limit');
    const ids: number[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await register({ url: `https://example.com/${i}` }, key)).webhook.id);
    const refused = await service.rejected('POST', WEBHOOKS, {
      body: { url: 'https://example.com/21' },
      key,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/at most 20/);
    await service.call('DELETE', `${WEBHOOKS}/${ids[0]}`, { key });
    await register({ url: 'https://example.com/again' }, key);
  });

  it('lists the event catalogue: every type a webhook may subscribe to, and the test one', async () => {
    const answer = await service.call('GET', '/api/public/v2/webhook-event-types');
    expect(answer.status).toBe(200);
    const types = answer.body.event_types as { event_type: string; subscribable: boolean }[];
    expect(types).toContainEqual({ event_type: 'monitor_triggered', subscribable: true });
    expect(types).toContainEqual({ event_type: 'webhook_test', subscribable: false });
    // Each subscribable one is accepted by a registration.
    const subscribable = types.filter((type) => type.subscribable).map((type) => type.event_type);
    const { webhook } = await register({ url: `${receiverUrl}/catalogue`, event_types: subscribable });
    expect(webhook.event_types).toEqual(subscribable);
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('needs the webhooks permission', async () => {
    const none = await service.keyWithPermissions({ prompts: 'edit' });
    const reader = await service.keyWithPermissions({ webhooks: 'read' });
    expect((await service.call('GET', WEBHOOKS, { key: none })).status).toBe(403);
    expect((await service.call('GET', WEBHOOKS, { key: reader })).status).toBe(200);
    expect((await service.call('GET', '/api/public/v2/webhook-event-types', { key: none })).status).toBe(403);
    expect(
      (await service.rejected('POST', WEBHOOKS, { key: reader, body: { url: 'https://e.com' } })).status,
    ).toBe(403);
  });
});

describe('delivery', () => {
  it('a published prompt version arrives signed, verifiable with standardwebhooks and PromptLayer-style', async () => {
    const { webhook, secret } = await register({
      url: `${receiverUrl}/prompts`,
      event_types: ['prompt_template_version_created'],
    });
    const name = uniqueName('hooked');
    const published = await publish(service, name);
    const request = await eventually(() => requestsTo('/prompts')[0] ?? expect.fail('no request yet'));

    const headers = request.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('promptops-webhooks/1');
    const payload = new Webhook(secret).verify(request.body, headers);
    expect(payload).toEqual({
      event_type: 'prompt_template_version_created',
      details: {
        prompt_id: published.id,
        prompt_name: name,
        prompt_version_id: expect.any(Number),
        version_number: 1,
      },
      user_id: expect.toBeOneOf([expect.any(Number), null]),
      user_name: null,
      user_email: null,
      workspace_id: service.workspaceId,
      timestamp: expect.any(String),
    });
    // PromptLayer's verifier: hex HMAC, keyed with the secret, of json.dumps(payload, sort_keys=True).
    expect(headers['x-promptlayer-signature']).toBe(
      createHmac('sha256', secret).update(request.body).digest('hex'),
    );
    expect(request.body.startsWith('{"details": {')).toBe(true);

    const listed = await eventually(async () => {
      const page = await deliveries(webhook.id);
      expect(page.deliveries[0]?.status).toBe('delivered');
      return page;
    });
    expect(listed.deliveries).toEqual([
      {
        id: headers['webhook-id'],
        webhook_id: webhook.id,
        event_id: expect.any(String),
        event_type: 'prompt_template_version_created',
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        created_at: expect.any(String),
        delivered_at: expect.any(String),
        dead_lettered: false,
      },
    ]);
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('a bus failure at publish loses no event: the sweep delivers it', async () => {
    const { webhook, secret } = await register({
      url: `${receiverUrl}/bus-failure`,
      event_types: ['prompt_template_version_created'],
    });
    // The publish puts the event twice (a second try for a refused entry): both fail.
    service.messaging.failPutEvents(2);
    const name = uniqueName('bus-down');
    await publish(service, name);
    await service.messaging.idle();
    expect(requestsTo('/bus-failure')).toEqual([]);

    // The sweep (on a schedule in AWS) puts again what no consumer acknowledged.
    process.env[EVENT_REDELIVERY_AFTER_ENV] = '0';
    try {
      await service.runSchedules();
    } finally {
      delete process.env[EVENT_REDELIVERY_AFTER_ENV];
    }
    const request = await eventually(() => requestsTo('/bus-failure')[0] ?? expect.fail('no request yet'));
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject(
      {
        event_type: 'prompt_template_version_created',
        details: { prompt_name: name, version_number: 1 },
      },
    );
    await service.messaging.idle();
    expect(requestsTo('/bus-failure')).toHaveLength(1);
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it("a dataset job's events arrive as webhooks", async () => {
    const { webhook, secret } = await register({
      url: `${receiverUrl}/datasets`,
      event_types: ['dataset_version_created_by_file'],
    });
    // Publishing answers 201 or fails the test.
    const { datasetId } = await publishedDataset(service, 'q,a\n1,2\n', { name: uniqueName('hooked') });
    const request = await eventually(() => requestsTo('/datasets')[0] ?? expect.fail('no request yet'));
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject(
      {
        event_type: 'dataset_version_created_by_file',
        details: { dataset_id: datasetId, dataset_version_number: 1 },
      },
    );
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it("another workspace's webhooks get nothing, and its ids are 404 here", async () => {
    const otherKey = await service.otherWorkspaceKey('webhook-other');
    const other = await register({ url: `${receiverUrl}/other-workspace` }, otherKey);
    const mine = await register({
      url: `${receiverUrl}/my-workspace`,
      event_types: ['prompt_template_version_created'],
    });
    await publish(service, uniqueName('isolated'));
    const sent = await eventually(() => requestsTo('/my-workspace')[0] ?? expect.fail('no request yet'));
    // The fan-out had written every delivery of the event before the first one was posted.
    expect((await deliveries(other.webhook.id, {}, otherKey)).total).toBe(0);
    expect(requestsTo('/other-workspace')).toEqual([]);

    const id = other.webhook.id;
    expect((await service.call('GET', `${WEBHOOKS}/${id}`)).status).toBe(404);
    expect(
      (await service.rejected('PATCH', `${WEBHOOKS}/${id}`, { body: { is_active: false } })).status,
    ).toBe(404);
    expect((await service.rejected('DELETE', `${WEBHOOKS}/${id}`)).status).toBe(404);
    expect((await service.rejected('POST', `${WEBHOOKS}/${id}/rotate-secret`)).status).toBe(404);
    expect((await service.rejected('POST', `${WEBHOOKS}/${id}/test`)).status).toBe(404);
    expect((await service.call('GET', `${WEBHOOKS}/${id}/deliveries`)).status).toBe(404);
    // A delivery of mine read through the other workspace's key: not found either.
    const mineDelivery = `${WEBHOOKS}/${mine.webhook.id}/deliveries/${sent.headers['webhook-id']}`;
    expect((await service.call('GET', mineDelivery)).status).toBe(200);
    expect((await service.call('GET', mineDelivery, { key: otherKey })).status).toBe(404);
    expect(
      (await service.call('GET', WEBHOOKS)).body.webhooks.map((w: { id: number }) => w.id),
    ).not.toContain(id);
    await service.call('DELETE', `${WEBHOOKS}/${mine.webhook.id}`);
  });

  it('rotation: both signatures for 24 h (each secret verifies alone), then only the new one', async () => {
    const { webhook, secret: oldSecret } = await register({
      url: `${receiverUrl}/rotation`,
      event_types: QUIET,
    });
    const rotated = await service.call('POST', `${WEBHOOKS}/${webhook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.webhook.previous_secret_expires_at).toEqual(expect.any(String));

    await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const during = await eventually(() => requestsTo('/rotation')[0] ?? expect.fail('no request yet'));
    const duringHeaders = during.headers as Record<string, string>;
    expect(duringHeaders['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(newSecret).verify(during.body, duringHeaders)).toMatchObject({
      event_type: 'webhook_test',
    });
    expect(new Webhook(oldSecret).verify(during.body, duringHeaders)).toMatchObject({
      event_type: 'webhook_test',
    });

    // 24 hours later, as far as the signer knows.
    process.env.WEBHOOK_SECRET_OVERLAP_SECONDS = '0';
    try {
      await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
      const after = await eventually(() => requestsTo('/rotation')[1] ?? expect.fail('no request yet'));
      const afterHeaders = after.headers as Record<string, string>;
      expect(afterHeaders['webhook-signature']?.split(' ')).toHaveLength(1);
      expect(new Webhook(newSecret).verify(after.body, afterHeaders)).toMatchObject({
        event_type: 'webhook_test',
      });
      expect(() => new Webhook(oldSecret).verify(after.body, afterHeaders)).toThrow();
      expect(
        (await service.call('GET', `${WEBHOOKS}/${webhook.id}`)).body.webhook.previous_secret_expires_at,
      ).toBeNull();
    } finally {
      delete process.env.WEBHOOK_SECRET_OVERLAP_SECONDS;
    }
  });

  it('a receiver that answers 500 twice then 200: delivered on the third attempt, same webhook-id', async () => {
    const { webhook, secret } = await register({ url: `${receiverUrl}/flaky`, event_types: QUIET });
    const test = await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const delivered = await eventually(async () => {
      const page = await deliveries(webhook.id);
      expect(page.deliveries[0]).toMatchObject({ status: 'delivered' });
      return page.deliveries[0];
    });
    expect(delivered).toMatchObject({
      id: test.body.delivery.id,
      attempts: 3,
      last_status_code: 200,
      last_error: null,
    });
    const attempts = requestsTo('/flaky');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((request) => request.headers['webhook-id']))).toEqual(
      new Set([delivered.id]),
    );
    expect(new Set(attempts.map((request) => request.body)).size).toBe(1);

    // The inspector's view: each attempt with its answer and the exact signature headers sent.
    const detail = await service.call('GET', `${WEBHOOKS}/${webhook.id}/deliveries/${delivered.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.delivery).toMatchObject({ ...delivered, body: attempts[0]?.body });
    const log = detail.body.delivery.attempt_log as {
      status_code: number | null;
      response_excerpt: string | null;
      latency_ms: number;
      started_at: string;
      headers: Record<string, string>;
    }[];
    expect(log.map((attempt) => [attempt.status_code, attempt.response_excerpt])).toEqual([
      [500, 'boom'],
      [500, 'boom'],
      [200, 'ok'],
    ]);
    log.forEach((attempt, index) => {
      const sent = attempts[index]?.headers ?? {};
      expect(attempt.headers).toEqual({
        'webhook-id': sent['webhook-id'],
        'webhook-timestamp': sent['webhook-timestamp'],
        'webhook-signature': sent['webhook-signature'],
        'x-promptlayer-signature': sent['x-promptlayer-signature'],
      });
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.started_at)).not.toBeNaN();
      // What the answer shows is enough to verify the attempt, with the secret the owner keeps.
      expect(new Webhook(secret).verify(detail.body.delivery.body, attempt.headers)).toBeTruthy();
    });
    expect(JSON.stringify(detail.body)).not.toContain(secret.slice('whsec_'.length));
    const unknown = await service.call('GET', `${WEBHOOKS}/${webhook.id}/deliveries/msg_unknown`);
    expect(unknown.status).toBe(404);
  });

  it('a 410 turns the webhook off and fails the delivery', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/gone`, event_types: QUIET });
    await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const got = await eventually(async () => {
      const answer = await service.call('GET', `${WEBHOOKS}/${webhook.id}`);
      expect(answer.body.webhook.is_active).toBe(false);
      return answer.body.webhook;
    });
    expect(got.disabled_reason).toMatch(/410/);
    const page = await deliveries(webhook.id, { status: 'failed' });
    expect(page.deliveries).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 1, last_status_code: 410 }),
    ]);
    expect(requestsTo('/gone')).toHaveLength(1);

    // Turned on again by its owner, the reason goes.
    const on = await service.call('PATCH', `${WEBHOOKS}/${webhook.id}`, { body: { is_active: true } });
    expect(on.body.webhook).toMatchObject({ is_active: true, disabled_reason: null });
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('a receiver that never answers: the attempt times out and is tried again, with the error shown', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/hang`, event_types: QUIET });
    await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const pending = await eventually(async () => {
      const page = await deliveries(webhook.id);
      expect(page.deliveries[0]?.attempts).toBeGreaterThanOrEqual(2);
      return page.deliveries[0];
    });
    expect(pending).toMatchObject({
      status: 'pending',
      last_status_code: null,
      last_error: expect.stringMatching(/time/i),
    });
    expect(requestsTo('/hang').length).toBeGreaterThanOrEqual(2);
    // Deleted: what is still queued for it is skipped.
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('a test sent to a webhook that is off is skipped, and the delivery says why', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/off`, event_types: QUIET, is_active: false });
    expect((await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`)).status).toBe(202);
    const skipped = await eventually(async () => {
      const [delivery] = (await deliveries(webhook.id)).deliveries;
      expect(delivery?.status).toBe('skipped');
      return delivery;
    });
    expect(skipped).toMatchObject({
      attempts: 0,
      last_status_code: null,
      last_error: expect.stringMatching(/off/),
    });
    expect(requestsTo('/off')).toHaveLength(0);
  });

  it('a redirect is not followed: retried, and the delivery says so', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/moved`, event_types: QUIET });
    await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const moved = await eventually(async () => {
      const [delivery] = (await deliveries(webhook.id)).deliveries;
      expect(delivery?.attempts).toBeGreaterThanOrEqual(1);
      return delivery;
    });
    expect(moved).toMatchObject({ last_status_code: 301, last_error: expect.stringMatching(/redirect/) });
    expect(requestsTo('/ok')).toHaveLength(0);
    await service.call('DELETE', `${WEBHOOKS}/${webhook.id}`);
  });

  it('a 2xx with an answer over the 1 MB cap is delivered once (the status is what counts)', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/big`, event_types: QUIET });
    await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    const done = await eventually(async () => {
      const [delivery] = (await deliveries(webhook.id)).deliveries;
      expect(delivery?.attempts).toBeGreaterThanOrEqual(1);
      expect(delivery?.status).not.toBe('pending');
      return delivery;
    });
    expect(done).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null });
    expect(requestsTo('/big')).toHaveLength(1);
  });

  it('deliveries are paged, filtered by status, and can be retried', async () => {
    const { webhook } = await register({ url: `${receiverUrl}/paged`, event_types: QUIET });
    for (let i = 0; i < 3; i++) await service.call('POST', `${WEBHOOKS}/${webhook.id}/test`);
    await eventually(async () =>
      expect((await deliveries(webhook.id, { status: 'delivered' })).total).toBe(3),
    );

    const first = await deliveries(webhook.id, { per_page: 2 });
    expect(first).toMatchObject({ total: 3, page: 1, per_page: 2, pages: 2, has_next: true, next_num: 2 });
    expect(first.deliveries).toHaveLength(2);
    const second = await deliveries(webhook.id, { per_page: 2, page: 2 });
    expect(second.deliveries).toHaveLength(1);
    const ids = [...first.deliveries, ...second.deliveries].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(3);
    expect((await deliveries(webhook.id, { status: 'failed' })).total).toBe(0);
    expect(
      (await service.call('GET', `${WEBHOOKS}/${webhook.id}/deliveries`, { query: { status: 'nope' } }))
        .status,
    ).toBe(422);

    const target = second.deliveries[0];
    const retried = await service.call('POST', `${WEBHOOKS}/${webhook.id}/deliveries/${target.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.delivery).toMatchObject({ id: target.id, status: 'pending' });
    const again = await eventually(async () => {
      const page = await deliveries(webhook.id, { status: 'delivered' });
      const item = page.deliveries.find((d: { id: string }) => d.id === target.id);
      expect(item?.attempts).toBe(2);
      return item;
    });
    expect(again.status).toBe('delivered');
    expect(
      requestsTo('/paged').filter((request) => request.headers['webhook-id'] === target.id),
    ).toHaveLength(2);

    const unknown = await service.rejected('POST', `${WEBHOOKS}/${webhook.id}/deliveries/msg_unknown/retry`);
    expect(unknown.status).toBe(404);
  });
});

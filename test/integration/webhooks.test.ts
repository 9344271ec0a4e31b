import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '#shared/auth/api-keys.ts';
import { newDelivery } from '#shared/webhooks/deliveries.ts';
import {
  claimDelivery,
  createDelivery,
  getWebhook,
  listWebhooks,
  queryDeliveries,
  recordDeliveryOutcome,
  resetDeliveryForRetry,
} from '#shared/webhooks/repository.ts';
import { createWebhook, removeWebhook, rotateSecret } from '#shared/webhooks/webhooks.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Webhook and delivery items against dynalite: the 20-webhook limit under concurrent creates, rotation,
 * deliveries made once per (event, webhook), claimed by one attempt at a time, listed by page and
 * status.
 */
let service: TestService;
// The local runtime serves the master key (Secrets Manager's GetSecretValue).
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const input = (url: string) => ({ url, is_active: true, headers: { Authorization: 'Bearer t' } });

describe('webhooks', () => {
  it('never lets concurrent creates pass 20 per workspace; a delete frees a place', async () => {
    const { workspaceId } = await ensureWorkspace('limit-race');
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => createWebhook(workspaceId, input(`https://e.com/${i}`))),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    const refusals = results.filter((result) => result.status === 'rejected');
    expect(refusals.map((result) => (result as PromiseRejectedResult).reason.status)).toEqual([
      422, 422, 422, 422, 422,
    ]);
    const webhooks = await listWebhooks(workspaceId);
    expect(webhooks).toHaveLength(20);
    expect(webhooks[0]?.headersSealed).not.toContain('Bearer');
    await removeWebhook(workspaceId, webhooks[0]!.id);
    await createWebhook(workspaceId, input('https://e.com/again'));
    await expect(createWebhook(workspaceId, input('https://e.com/over'))).rejects.toMatchObject({
      status: 422,
    });
  });

  it('rotation keeps the previous version and answers a different secret', async () => {
    const { workspaceId } = await ensureWorkspace('rotation');
    const created = await createWebhook(workspaceId, input('https://e.com/r'));
    const rotated = await rotateSecret(workspaceId, created.webhook.id);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await getWebhook(workspaceId, created.webhook.id)).toMatchObject({
      secretVersion: 2,
      previousSecretVersion: 1,
      rotatedAt: expect.any(Number),
    });
    expect(rotated.webhook.previous_secret_expires_at).toEqual(expect.any(String));
  });
});

describe('deliveries', () => {
  const envelope = (n: number) => ({
    event_type: 'webhook_test' as const,
    details: { webhook_id: 1, message: `m${n}` },
    user_id: null,
    user_name: null,
    user_email: null,
    workspace_id: 1,
    timestamp: new Date(n).toISOString(),
  });

  it('one per (event, webhook); claimed by one attempt at a time; paged and filtered', async () => {
    const webhook = { workspaceId: 99, id: 5 };
    const first = newDelivery(webhook, 'ev-1', envelope(1), 1_000);
    expect(await createDelivery(first)).toEqual({ created: true });
    const again = await createDelivery(newDelivery(webhook, 'ev-1', envelope(1), 2_000));
    expect(again).toMatchObject({ created: false, existing: { id: first.id, createdAt: 1_000 } });
    for (let n = 2; n <= 5; n++)
      await createDelivery(newDelivery(webhook, `ev-${n}`, envelope(n), n * 1_000));

    const now = Date.now();
    expect(await claimDelivery(99, 5, first.id, now + 60_000, now)).toMatchObject({ id: first.id });
    expect(await claimDelivery(99, 5, first.id, now + 60_000, now)).toBeUndefined();
    await recordDeliveryOutcome(first, {
      status: 'delivered',
      attempted: true,
      lastStatusCode: 200,
      deliveredAt: now,
    });
    expect(await claimDelivery(99, 5, first.id, now + 60_000, now)).toBeUndefined();

    const page1 = await queryDeliveries(99, 5, { page: 1, perPage: 2 });
    expect(page1.total).toBe(5);
    expect(page1.items.map((d) => d.eventId)).toEqual(['ev-5', 'ev-4']);
    const page3 = await queryDeliveries(99, 5, { page: 3, perPage: 2 });
    expect(page3.items.map((d) => d.eventId)).toEqual(['ev-1']);
    expect((await queryDeliveries(99, 5, { page: 4, perPage: 2 })).items).toEqual([]);
    const delivered = await queryDeliveries(99, 5, { status: 'delivered', page: 1, perPage: 10 });
    expect(delivered.items).toEqual([
      expect.objectContaining({ id: first.id, attempts: 1, lastStatusCode: 200 }),
    ]);
    expect((await queryDeliveries(99, 5, { status: 'pending', page: 1, perPage: 10 })).total).toBe(4);

    const reset = await resetDeliveryForRetry(99, 5, first.id);
    expect(reset).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await queryDeliveries(99, 5, { status: 'delivered', page: 1, perPage: 10 })).total).toBe(0);
    expect(await resetDeliveryForRetry(99, 5, 'msg_nope')).toBeUndefined();
  });

  it('is not reset for a retry while an attempt holds it (it would be posted twice at once)', async () => {
    const delivery = newDelivery({ workspaceId: 99, id: 6 }, 'ev-held', envelope(9), 1_000);
    await createDelivery(delivery);
    const now = Date.now();
    expect(await claimDelivery(99, 6, delivery.id, now + 60_000, now)).toBeDefined();
    expect(await resetDeliveryForRetry(99, 6, delivery.id, now)).toBeUndefined();
    expect(await resetDeliveryForRetry(99, 6, delivery.id, now + 61_000)).toMatchObject({
      status: 'pending',
    });
  });
});

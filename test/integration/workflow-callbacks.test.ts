import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboundUrl } from '#shared/platform/outbound-http.ts';
import {
  CALLBACK_MAX_BODY_BYTES,
  callbackSecret,
  getRunCallbackDelivery,
  sendRunCallback,
} from '#shared/workflows/callback.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { expectErrorLogs } from '#test/support/logs.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '#test/support/receiver.ts';

/**
 * Workflow run callbacks through the webhook delivery pipeline: dynalite, the local delivery queue and
 * its worker (with that worker's grants), the guarded outbound client, and a loopback receiver
 * (allowed through OUTBOUND_ALLOWED_HOSTS). The local runtime scales queue delays by `timeScale`, so
 * the retry schedule runs in milliseconds.
 */
let service: TestService;
let receiver: Receiver;
let receiverUrl: string;
let received: ReceivedRequest[] = [];
const hits = new Map<string, number>();

function answer(path: string, response: ServerResponse) {
  const count = (hits.get(path) ?? 0) + 1;
  hits.set(path, count);
  if (path.startsWith('/flaky')) return response.writeHead(count === 1 ? 500 : 200).end();
  // Retry-After: 0, so its seven attempts do not wait for the backoff schedule.
  if (path.startsWith('/down')) return response.writeHead(500, { 'retry-after': '0' }).end('down');
  if (path.startsWith('/gone')) return response.writeHead(410).end('gone');
  response.writeHead(200).end('ok');
}

beforeAll(async () => {
  receiver = await startReceiver(({ path }, response) => answer(path, response));
  ({ url: receiverUrl, received } = receiver);
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  service = await startTestService({ timeScale: 0.001 });
});

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
});

const requestsTo = (path: string) => received.filter((request) => request.path === path);
const eventually = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 20 });

/** Waits until the run's callback has the given status, and returns it. */
const settled = (workspaceId: number, executionId: number, status: string) =>
  eventually(async () => {
    const delivery = await getRunCallbackDelivery(workspaceId, executionId);
    expect(delivery?.status).toBe(status);
    return delivery!;
  });

let nextExecution = 1000;
const run = (path: string, finalOutput: unknown = { answer: 'ok' }) => ({
  workspaceId: service.workspaceId,
  executionId: nextExecution++,
  url: `${receiverUrl}${path}`,
  finalOutput,
});

describe('run callbacks', () => {
  it('POSTs the result, signed with the run secret (Standard Webhooks)', async () => {
    const callback = run('/ok', { summary: 'caf\u00e9', n: 2 });
    await sendRunCallback(callback);
    const delivery = await settled(callback.workspaceId, callback.executionId, 'delivered');
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200, lastError: null });

    const [request] = requestsTo('/ok');
    const secret = await callbackSecret(callback.workspaceId, callback.executionId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toEqual({
      workflow_version_execution_id: callback.executionId,
      final_output: { summary: 'café', n: 2 },
      result_code: 'OK',
    });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': delivery.id,
    });
    // Another run's secret does not verify it.
    const other = await callbackSecret(callback.workspaceId, callback.executionId + 1);
    expect(() =>
      new Webhook(other).verify(request!.body, request!.headers as Record<string, string>),
    ).toThrow();
  });

  it('is retried after a 500, then delivered with the same id and body', async () => {
    const callback = run('/flaky');
    await sendRunCallback(callback);
    const delivery = await settled(callback.workspaceId, callback.executionId, 'delivered');
    expect(delivery).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    const attempts = requestsTo('/flaky');
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((request) => request.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(attempts[0]!.body).toBe(attempts[1]!.body);
  });

  it('is sent once however often the engine asks', async () => {
    const callback = run('/once');
    await Promise.all([sendRunCallback(callback), sendRunCallback(callback)]);
    await settled(callback.workspaceId, callback.executionId, 'delivered');
    await sendRunCallback(callback);
    await service.messaging.idle();
    expect(requestsTo('/once')).toHaveLength(1);
  });

  it('a refused address ends failed, without a request', async () => {
    const callback = { ...run('/unused'), url: 'https://10.0.0.7/hook' };
    await sendRunCallback(callback);
    const delivery = await getRunCallbackDelivery(callback.workspaceId, callback.executionId);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 0,
      lastError: expect.stringMatching(/^refused: /),
    });
    await service.messaging.idle();
    expect(await getRunCallbackDelivery(callback.workspaceId, callback.executionId)).toMatchObject({
      status: 'failed',
      attempts: 0,
    });
    // The run route refuses it first, with a 422 (its body schema checks callback_url so).
    expect(outboundUrl().safeParse(callback.url).success).toBe(false);
    expect(outboundUrl().safeParse('http://example.com/plain').error?.issues[0]?.message).toMatch(/https/);
    expect(outboundUrl().safeParse('https://example.com/hook').success).toBe(true);
  });

  it('a result over the size limit is sent without it (EXCEEDS_SIZE_LIMIT)', async () => {
    const callback = run('/big', 'x'.repeat(CALLBACK_MAX_BODY_BYTES));
    await sendRunCallback(callback);
    await settled(callback.workspaceId, callback.executionId, 'delivered');
    expect(JSON.parse(requestsTo('/big')[0]!.body)).toEqual({
      workflow_version_execution_id: callback.executionId,
      final_output: null,
      result_code: 'EXCEEDS_SIZE_LIMIT',
    });
  });

  it('a 410 stops it at once; an endpoint always down fails it on the last receive', async () => {
    const gone = run('/gone');
    await sendRunCallback(gone);
    expect(await settled(gone.workspaceId, gone.executionId, 'failed')).toMatchObject({
      attempts: 1,
      lastStatusCode: 410,
    });
    expect(requestsTo('/gone')).toHaveLength(1);

    const errors = expectErrorLogs();
    try {
      const down = run('/down');
      await sendRunCallback(down);
      expect(await settled(down.workspaceId, down.executionId, 'failed')).toMatchObject({
        attempts: 7,
        lastStatusCode: 500,
        lastError: 'down',
      });
      await service.messaging.idle();
      expect(requestsTo('/down')).toHaveLength(7);
      expect(errors).toHaveBeenCalledWith(
        'Run callback failed for the last time: on to the dead-letter queue',
        expect.objectContaining({ executionId: down.executionId }),
      );
      expect(errors).toHaveBeenCalledOnce();
      expect(service.messaging.deadLetters).toContainEqual(
        expect.objectContaining({ queue: 'webhook-delivery', receiveCount: 7 }),
      );
    } finally {
      errors.mockRestore();
    }
  });
});

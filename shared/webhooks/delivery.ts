import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { ENV, queueUrlEnv, requireEnv } from '#shared/platform/config.ts';
import { isConditionFailed } from '#shared/platform/dynamo.ts';
import { clip } from '#shared/platform/errors.ts';
import { logger } from '#shared/platform/logger.ts';
import { OutboundError, type OutboundResponse, outboundRequest } from '#shared/platform/outbound-http.ts';
import { MAX_DELIVERY_RECEIVES, retryDelaySeconds } from './backoff.ts';
import { WEBHOOK_DELIVERY_QUEUE } from './deliveries.ts';
import { claimDelivery, getWebhook, recordDeliveryOutcome, updateWebhook } from './repository.ts';
import { signingKeys, unsealHeaders } from './secrets.ts';
import { deliveryHeaders } from './signing.ts';

/**
 * Queue `webhook-delivery`: one attempt of one delivery. 2xx: delivered. 410: the receiver is gone,
 * the webhook is turned off and the delivery failed. Anything else (another status, a timeout, a
 * refused address, a network error): the attempt is recorded and the message comes back after the
 * backoff delay (ChangeMessageVisibility), until the last receive marks the delivery failed and the
 * message goes on to the dead-letter queue.
 */
export const LAST_ERROR_MAX_CHARS = 2048;
/** How long one attempt holds its delivery: past the outbound timeout, within the worker's. */
export const ATTEMPT_LEASE_MS = 60_000;

const messageSchema = z.object({
  v: z.literal(1),
  type: z.literal('webhook_delivery'),
  workspace_id: z.number().int().positive(),
  webhook_id: z.number().int().positive(),
  delivery_id: z.string().min(1),
});

export interface ReceivedDelivery {
  body: string;
  receiptHandle: string;
  /** This message's receives so far, this one included. */
  receiveCount: number;
}

/** `retry`: report the message as failed (it comes back after the delay already set). */
export type AttemptResult = 'done' | 'retry';

let sqs: SQSClient | undefined;

async function delayMessage(receiptHandle: string, seconds: number): Promise<void> {
  sqs ??= new SQSClient({ endpoint: process.env[ENV.sqsEndpoint] || undefined });
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: requireEnv(queueUrlEnv(WEBHOOK_DELIVERY_QUEUE)),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

function header(response: OutboundResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function attemptDelivery(received: ReceivedDelivery, now = Date.now()): Promise<AttemptResult> {
  const message = messageSchema.parse(JSON.parse(received.body));
  // Both at once: the webhook read is wasted only for a message that has nothing to do.
  const [delivery, webhook] = await Promise.all([
    claimDelivery(message.workspace_id, message.webhook_id, message.delivery_id, now + ATTEMPT_LEASE_MS, now),
    getWebhook(message.workspace_id, message.webhook_id),
  ]);
  // Already delivered, failed or skipped, expired, or being attempted by another message: nothing to do.
  if (!delivery) return 'done';
  if (!webhook?.isActive) {
    await recordDeliveryOutcome(delivery, {
      status: 'skipped',
      attempted: false,
      lastError: webhook ? 'skipped: the webhook is turned off' : 'skipped: the webhook was deleted',
      nextAttemptAt: null,
    });
    return 'done';
  }

  let response: OutboundResponse | undefined;
  let failure: string | undefined;
  try {
    const headers = deliveryHeaders({
      deliveryId: delivery.id,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body: delivery.body,
      keys: await signingKeys(webhook),
      userHeaders: await unsealHeaders(webhook),
    });
    // Only the status and the first 2 KB of the answer count: a 2xx with a big body is delivered.
    response = await outboundRequest({
      url: webhook.url,
      method: 'POST',
      headers,
      body: delivery.body,
      truncateResponse: true,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    failure = `${error.code}: ${error.message}`;
  }

  const logKeys = { deliveryId: delivery.id, webhookId: delivery.webhookId, attempt: delivery.attempts + 1 };
  if (response && response.status >= 200 && response.status < 300) {
    await recordDeliveryOutcome(delivery, {
      status: 'delivered',
      attempted: true,
      lastStatusCode: response.status,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: Date.now(),
    });
    return 'done';
  }

  const lastStatusCode = response?.status ?? null;
  const answered = response?.body.toString('utf8') ?? '';
  const isRedirect = response !== undefined && response.status >= 300 && response.status < 400;
  // A redirect usually has no body: say why it counts as a failure.
  const lastError =
    failure ??
    (clip(
      isRedirect ? `redirect not followed (use the final URL)${answered ? `: ${answered}` : ''}` : answered,
      LAST_ERROR_MAX_CHARS,
    ) ||
      null);
  const recordFailed = () =>
    recordDeliveryOutcome(delivery, {
      status: 'failed',
      attempted: true,
      lastStatusCode,
      lastError,
      nextAttemptAt: null,
    });
  if (response?.status === 410) {
    await updateWebhook(delivery.workspaceId, delivery.webhookId, {
      isActive: false,
      disabledReason: `The endpoint answered 410 Gone on ${new Date().toISOString()}`,
    });
    await recordFailed();
    logger.warn('Webhook disabled: its endpoint answered 410', logKeys);
    return 'done';
  }

  if (received.receiveCount >= MAX_DELIVERY_RECEIVES) {
    await recordFailed();
    logger.error('Webhook delivery failed for the last time: on to the dead-letter queue', {
      ...logKeys,
      status: lastStatusCode,
    });
    return 'retry';
  }

  const delay = retryDelaySeconds(received.receiveCount, response && header(response, 'retry-after'));
  await recordDeliveryOutcome(delivery, {
    status: 'pending',
    attempted: true,
    lastStatusCode,
    lastError,
    nextAttemptAt: Date.now() + delay * 1000,
  });
  try {
    await delayMessage(received.receiptHandle, delay);
  } catch (error) {
    // The message still comes back, after the queue's visibility timeout instead of the backoff.
    logger.warn('Could not delay a webhook delivery', { ...logKeys, error: error as Error });
  }
  logger.info('Webhook delivery will be tried again', {
    ...logKeys,
    status: lastStatusCode,
    delaySeconds: delay,
  });
  return 'retry';
}

/**
 * The last receive of a message whose attempt threw (not an answer or a network failure: the master
 * key, the table): the delivery is marked failed, as it goes to the dead-letter queue, instead of
 * staying pending for ever. A body that is not a delivery message has no delivery to mark.
 */
export async function failAfterError(received: ReceivedDelivery): Promise<void> {
  let message: z.infer<typeof messageSchema>;
  try {
    message = messageSchema.parse(JSON.parse(received.body));
  } catch {
    return;
  }
  try {
    await recordDeliveryOutcome(
      { workspaceId: message.workspace_id, webhookId: message.webhook_id, id: message.delivery_id },
      {
        status: 'failed',
        attempted: false,
        lastError: 'internal error: the delivery could not be attempted',
        nextAttemptAt: null,
      },
      true,
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

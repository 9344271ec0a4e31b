import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, queueUrlEnv, requireEnv } from '#shared/platform/config.ts';
import { isConditionFailed } from '#shared/platform/dynamo.ts';
import { clip } from '#shared/platform/errors.ts';
import { logger } from '#shared/platform/logger.ts';
import { OutboundError, type OutboundResponse, outboundRequest } from '#shared/platform/outbound-http.ts';
import * as z from '#shared/platform/zod.ts';
import { MAX_DELIVERY_RECEIVES, retryDelaySeconds } from './backoff.ts';
import { WEBHOOK_DELIVERY_QUEUE } from './deliveries.ts';
import {
  type AnyDeliveryRecord,
  claimDeliveryAt,
  type DeliveryRecord,
  type DeliveryRef,
  getWebhook,
  isRunCallback,
  type RunCallbackDeliveryRecord,
  recordDeliveryOutcome,
  updateWebhook,
  type WebhookRecord,
} from './repository.ts';
import { runCallbackSigningKey, signingKeys, unsealHeaders } from './secrets.ts';
import { deliveryHeaders } from './signing.ts';

/**
 * Queue `webhook-delivery`: one attempt of one delivery, to a webhook or to a workflow run's callback
 * URL. 2xx: delivered. 410: the receiver is gone: the delivery failed (and a webhook is turned off).
 * Anything else (another status, a timeout, a refused address, a network error): the attempt is
 * recorded and the message comes back after the backoff delay (ChangeMessageVisibility), until the last
 * receive marks the delivery failed and the message goes on to the dead-letter queue.
 */
export const LAST_ERROR_MAX_CHARS = 2048;
/** How long one attempt holds its delivery: past the outbound timeout, within the worker's. */
export const ATTEMPT_LEASE_MS = 60_000;

const messageSchema = z.discriminatedUnion('type', [
  z.object({
    v: z.literal(1),
    type: z.literal('webhook_delivery'),
    workspace_id: z.int().check(z.positive()),
    webhook_id: z.int().check(z.positive()),
    delivery_id: z.string().check(z.minLength(1)),
  }),
  z.object({
    v: z.literal(1),
    type: z.literal('run_callback'),
    workspace_id: z.int().check(z.positive()),
    execution_id: z.int().check(z.positive()),
    delivery_id: z.string().check(z.minLength(1)),
  }),
]);

function refOf(message: z.infer<typeof messageSchema>): DeliveryRef {
  return message.type === 'webhook_delivery'
    ? { workspaceId: message.workspace_id, webhookId: message.webhook_id, id: message.delivery_id }
    : { workspaceId: message.workspace_id, executionId: message.execution_id, id: message.delivery_id };
}

/** Where a claimed delivery goes, and what a 410 means there. */
interface Recipient {
  /** How log lines name it: `Webhook delivery`, `Run callback`. */
  label: string;
  logKeys: Record<string, unknown>;
  url: string;
  /** The signing keys (current first) and the receiver's own headers, read when it is sent. */
  signing(): Promise<{ keys: Buffer[]; userHeaders: Record<string, string> }>;
  /** What a 410 does besides failing the delivery, and the warning it logs. */
  gone: { apply?(): Promise<void>; log: string };
}

/** A webhook's delivery goes to the webhook's URL, or nowhere (why) when it is off or deleted. */
function webhookRecipient(delivery: DeliveryRecord, webhook: WebhookRecord | undefined): Recipient | string {
  if (!webhook) return 'skipped: the webhook was deleted';
  if (!webhook.isActive) return 'skipped: the webhook is turned off';
  return {
    label: 'Webhook delivery',
    logKeys: { deliveryId: delivery.id, webhookId: delivery.webhookId, attempt: delivery.attempts + 1 },
    url: webhook.url,
    signing: async () => ({ keys: await signingKeys(webhook), userHeaders: await unsealHeaders(webhook) }),
    gone: {
      apply: async () => {
        await updateWebhook(delivery.workspaceId, delivery.webhookId, {
          isActive: false,
          disabledReason: `The endpoint answered 410 Gone on ${new Date().toISOString()}`,
        });
      },
      log: 'Webhook disabled: its endpoint answered 410',
    },
  };
}

/** A run's callback: its URL is on the delivery, its key derived from the run; no other header. */
function callbackRecipient(delivery: RunCallbackDeliveryRecord): Recipient {
  return {
    label: 'Run callback',
    logKeys: { deliveryId: delivery.id, executionId: delivery.executionId, attempt: delivery.attempts + 1 },
    url: delivery.url,
    signing: async () => ({
      keys: [await runCallbackSigningKey(delivery.workspaceId, delivery.executionId)],
      userHeaders: {},
    }),
    gone: { log: 'Run callback stopped: its endpoint answered 410' },
  };
}

/**
 * Claims the delivery for one attempt, with where it goes (or why it is skipped); undefined when there
 * is nothing to do (see `attemptDelivery`).
 */
async function claim(
  ref: DeliveryRef,
  now: number,
): Promise<{ delivery: AnyDeliveryRecord; recipient: Recipient | string } | undefined> {
  const leaseUntil = now + ATTEMPT_LEASE_MS;
  // A webhook's both at once: the webhook read is wasted only for a message that has nothing to do.
  const [delivery, webhook] = await Promise.all([
    claimDeliveryAt(ref, leaseUntil, now),
    ref.webhookId === undefined ? undefined : getWebhook(ref.workspaceId, ref.webhookId),
  ]);
  if (!delivery) return undefined;
  return {
    delivery,
    recipient: isRunCallback(delivery) ? callbackRecipient(delivery) : webhookRecipient(delivery, webhook),
  };
}

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
  const claimed = await claim(refOf(messageSchema.parse(JSON.parse(received.body))), now);
  // Already delivered, failed or skipped, expired, or being attempted by another message: nothing to do.
  if (!claimed) return 'done';
  const { delivery, recipient } = claimed;
  if (typeof recipient === 'string') {
    await recordDeliveryOutcome(delivery, {
      status: 'skipped',
      attempted: false,
      lastError: recipient,
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
      ...(await recipient.signing()),
    });
    // Only the status and the first 2 KB of the answer count: a 2xx with a big body is delivered.
    response = await outboundRequest({
      url: recipient.url,
      method: 'POST',
      headers,
      body: delivery.body,
      truncateResponse: true,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    failure = `${error.code}: ${error.message}`;
  }

  const { logKeys, label } = recipient;
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
    // A webhook is turned off; a run's callback just stops.
    await recipient.gone.apply?.();
    await recordFailed();
    logger.warn(recipient.gone.log, logKeys);
    return 'done';
  }

  if (received.receiveCount >= MAX_DELIVERY_RECEIVES) {
    await recordFailed();
    logger.error(`${label} failed for the last time: on to the dead-letter queue`, {
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
    logger.warn(`Could not delay a ${label.toLowerCase()}`, { ...logKeys, error: error as Error });
  }
  logger.info(`${label} will be tried again`, {
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
      refOf(message),
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

import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as deliveryHandler } from '#functions/workers/webhook-delivery.ts';
import { handler as fanoutHandler } from '#functions/workers/webhook-fanout.ts';
import { logger } from '#shared/platform/logger.ts';
import { resetMasterKey } from '#shared/platform/master-key.ts';
import { signingKey } from '#shared/webhooks/secrets.ts';
import { secretText } from '#shared/webhooks/signing.ts';
import { sqsEvent } from '#test/support/sqs.ts';

/**
 * The fan-out and delivery workers against mocked AWS clients and a mocked outbound client: one
 * delivery per subscribed active webhook (none twice for a repeated event), signed posts, the outcome
 * of each answer (delivered, retried with a delay, failed on the last receive, 410 turns the webhook
 * off) and skipped deliveries of an inactive webhook.
 */
const outbound = vi.hoisted(() => ({ request: vi.fn() }));
vi.mock('#shared/platform/outbound-http.ts', async (original) => ({
  ...(await original<typeof import('#shared/platform/outbound-http.ts')>()),
  outboundRequest: outbound.request,
}));

process.env.TABLE_NAME = 'table';
process.env.MASTER_KEY_SECRET_ID = 'master';
process.env.QUEUE_URL_WEBHOOK_DELIVERY = 'https://sqs/webhook-delivery';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const secrets = mockClient(SecretsManagerClient);
afterAll(() => {
  ddb.restore();
  sqs.restore();
  secrets.restore();
});

const WS = 4;
const webhookItem = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  workspaceId: WS,
  url: `https://receiver.example/${id}`,
  eventTypes: ['prompt_template_version_created'],
  description: null,
  isActive: true,
  headerNames: [],
  secretVersion: 1,
  createdAt: 1,
  updatedAt: 1,
  ...overrides,
});

const busMessage = {
  'detail-type': 'prompt_template_version_created',
  source: 'promptops',
  detail: {
    event_id: 'evt-1',
    event_type: 'prompt_template_version_created',
    details: { prompt_id: 1, prompt_name: 'p', prompt_version_id: 2, version_number: 1 },
    user_id: 1,
    user_name: null,
    user_email: null,
    workspace_id: WS,
    timestamp: '2024-01-01T00:00:00.000Z',
  },
};

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  secrets.reset();
  outbound.request.mockReset();
  resetMasterKey();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'test master' });
});

describe('fan-out', () => {
  it('makes one delivery per active subscribed webhook, and none again for the same event', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        webhookItem(1),
        webhookItem(2, { isActive: false }),
        webhookItem(3, { eventTypes: ['dataset_version_created_by_file'] }),
      ],
    });
    ddb.on(PutCommand).resolves({});
    ddb.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({});
    expect(await fanoutHandler(sqsEvent({ id: 'm1', body: busMessage }))).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandTimes(PutCommand, 1);
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(put.Item).toMatchObject({ webhookId: 1, eventId: 'evt-1', status: 'pending', attempts: 0 });
    expect(JSON.parse(put.Item!.body as string)).toEqual(
      (({ event_id: _, ...envelope }) => envelope)(busMessage.detail),
    );
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);

    // The same event again: the conditional put fails on the existing delivery, already attempted.
    ddb.reset();
    sqs.reset();
    ddb.on(QueryCommand).resolves({ Items: [webhookItem(1)] });
    ddb
      .on(PutCommand)
      .rejects(Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' }));
    ddb.on(UpdateCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: { ...put.Item, status: 'delivered', attempts: 1 } });
    await fanoutHandler(sqsEvent({ id: 'm2', body: busMessage }));
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 0);

    // ... or never attempted (its message may be lost): sent again, still one delivery item.
    ddb.on(GetCommand).resolves({ Item: put.Item });
    await fanoutHandler(sqsEvent({ id: 'm3', body: busMessage }));
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);
  });
});

describe('delivery', () => {
  const body = '{"a": 1}';
  const delivery = {
    id: 'msg_abc',
    workspaceId: WS,
    webhookId: 1,
    eventId: 'evt-1',
    eventType: 'prompt_template_version_created',
    status: 'pending',
    attempts: 0,
    createdAt: 1,
    body,
  };
  const message = { v: 1, type: 'webhook_delivery', workspace_id: WS, webhook_id: 1, delivery_id: 'msg_abc' };
  const outcome = () => {
    const calls = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    return calls[calls.length - 1]!.ExpressionAttributeValues!;
  };

  function given(webhook: Record<string, unknown> | undefined) {
    ddb.on(UpdateCommand).resolves({ Attributes: delivery });
    ddb.on(GetCommand).resolves({ Item: webhook });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
  }

  it('posts the stored body signed, and a 2xx marks it delivered', async () => {
    given(webhookItem(1));
    outbound.request.mockResolvedValue({ status: 204, headers: {}, body: Buffer.alloc(0) });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    const sent = outbound.request.mock.calls[0]![0];
    expect(sent).toMatchObject({ url: 'https://receiver.example/1', method: 'POST', body });
    const secret = secretText(await signingKey(WS, 1, 1));
    expect(new Webhook(secret).verify(body, sent.headers)).toEqual({ a: 1 });
    expect(outcome()).toMatchObject({ ':status': 'delivered', ':lastStatusCode': 204 });
  });

  it('another answer records it and comes back after the backoff delay', async () => {
    given(webhookItem(1));
    outbound.request.mockResolvedValue({
      status: 503,
      headers: { 'retry-after': '30' },
      body: Buffer.from('down'),
    });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message, receiveCount: 2 }))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm' }],
    });
    expect(outcome()).toMatchObject({ ':status': 'pending', ':lastStatusCode': 503, ':lastError': 'down' });
    // The attempt joins the delivery's log: its answer and the signature headers sent, no secret.
    expect(outcome()[':attemptLog']).toEqual([
      {
        startedAt: expect.any(Number),
        latencyMs: expect.any(Number),
        statusCode: 503,
        excerpt: 'down',
        headers: {
          'webhook-id': delivery.id,
          'webhook-timestamp': expect.stringMatching(/^\d+$/),
          'webhook-signature': expect.stringMatching(/^v1,/),
          'x-promptlayer-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      },
    ]);
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityCommand, {
      QueueUrl: 'https://sqs/webhook-delivery',
      ReceiptHandle: 'm',
      VisibilityTimeout: 30,
    });
  });

  it('the last receive marks it failed (on to the DLQ)', async () => {
    given(webhookItem(1));
    const { OutboundError } = await import('#shared/platform/outbound-http.ts');
    outbound.request.mockRejectedValue(new OutboundError('timeout', 'no answer within 15000 ms'));
    const errorLog = vi.spyOn(logger, 'error').mockImplementation(() => {});
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message, receiveCount: 7 }))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm' }],
    });
    expect(outcome()).toMatchObject({
      ':status': 'failed',
      ':lastStatusCode': null,
      ':lastError': 'timeout: no answer within 15000 ms',
      ':deadLettered': true,
    });
    expect(sqs).toHaveReceivedCommandTimes(ChangeMessageVisibilityCommand, 0);
    expect(errorLog).toHaveBeenCalledOnce();
    errorLog.mockRestore();
  });

  it('an internal error on the last receive marks it failed rather than leaving it pending', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: delivery });
    ddb.on(GetCommand).rejects(new Error('table unavailable'));
    const errorLog = vi.spyOn(logger, 'error').mockImplementation(() => {});
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message, receiveCount: 7 }))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm' }],
    });
    expect(outbound.request).not.toHaveBeenCalled();
    expect(outcome()).toMatchObject({
      ':status': 'failed',
      ':lastError': expect.stringMatching(/internal error/),
    });
    expect(errorLog).toHaveBeenCalledOnce();
    errorLog.mockRestore();
  });

  it('410 turns the webhook off and fails the delivery without a retry', async () => {
    given(webhookItem(1));
    outbound.request.mockResolvedValue({ status: 410, headers: {}, body: Buffer.alloc(0) });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates.some((update) => update.ExpressionAttributeValues?.[':v0'] === false)).toBe(true);
    expect(outcome()).toMatchObject({ ':status': 'failed', ':lastStatusCode': 410 });
  });

  it('an inactive or deleted webhook: skipped, nothing posted', async () => {
    given(undefined);
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    expect(outbound.request).not.toHaveBeenCalled();
    expect(outcome()).toMatchObject({ ':status': 'skipped' });
  });

  it('a delivery no longer pending (or held by another attempt) is left alone', async () => {
    ddb.on(GetCommand).resolves({ Item: webhookItem(1) });
    ddb
      .on(UpdateCommand)
      .rejects(Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException' }));
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    expect(outbound.request).not.toHaveBeenCalled();
  });
});

import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as deliveryHandler } from '#functions/workers/webhook-delivery.ts';
import { resetMasterKey } from '#shared/platform/master-key.ts';
import { callbackSecret } from '#shared/workflows/callback.ts';
import { sqsEvent } from '#test/support/sqs.ts';

/**
 * A run's callback through the delivery worker, against mocked AWS clients and a mocked outbound
 * client: posted to the URL on the delivery, signed with the run's secret, no webhook read; a 410 fails
 * it with nothing else written; another answer comes back after the backoff delay.
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
const body = '{"final_output": 1, "result_code": "OK", "workflow_version_execution_id": 77}';
const delivery = {
  id: 'msg_run',
  workspaceId: WS,
  executionId: 77,
  url: 'https://receiver.example/run',
  status: 'pending',
  attempts: 0,
  createdAt: 1,
  body,
};
const message = { v: 1, type: 'run_callback', workspace_id: WS, execution_id: 77, delivery_id: 'msg_run' };
const updates = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  secrets.reset();
  outbound.request.mockReset();
  resetMasterKey();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'test master' });
  ddb.on(UpdateCommand).resolves({ Attributes: delivery });
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
});

describe('run callback delivery', () => {
  it('posts the body to the run URL, signed with the run secret; no webhook is read', async () => {
    outbound.request.mockResolvedValue({ status: 200, headers: {}, body: Buffer.alloc(0) });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    const sent = outbound.request.mock.calls[0]![0];
    expect(sent).toMatchObject({ url: 'https://receiver.example/run', method: 'POST', body });
    expect(new Webhook(await callbackSecret(WS, 77)).verify(body, sent.headers)).toMatchObject({
      workflow_version_execution_id: 77,
    });
    expect(ddb).toHaveReceivedCommandTimes(GetCommand, 0);
    const [claim, outcome] = updates();
    expect(claim!.Key).toEqual({ PK: `W#${WS}#WCB#77`, SK: 'D#msg_run' });
    expect(outcome!.ExpressionAttributeValues).toMatchObject({ ':status': 'delivered' });
    expect(outcome!.ExpressionAttributeValues).not.toHaveProperty(':gsi2');
  });

  it('a 410 fails it, and writes nothing but the outcome', async () => {
    outbound.request.mockResolvedValue({ status: 410, headers: {}, body: Buffer.alloc(0) });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message }))).toEqual({ batchItemFailures: [] });
    expect(updates()).toHaveLength(2);
    expect(updates()[1]!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':lastStatusCode': 410,
    });
    expect(sqs).toHaveReceivedCommandTimes(ChangeMessageVisibilityCommand, 0);
  });

  it('another answer comes back after the backoff delay', async () => {
    outbound.request.mockResolvedValue({ status: 502, headers: {}, body: Buffer.from('bad gateway') });
    expect(await deliveryHandler(sqsEvent({ id: 'm', body: message, receiveCount: 1 }))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm' }],
    });
    expect(updates()[1]!.ExpressionAttributeValues).toMatchObject({
      ':status': 'pending',
      ':lastError': 'bad gateway',
    });
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityCommand, {
      ReceiptHandle: 'm',
      VisibilityTimeout: expect.any(Number),
    });
  });
});

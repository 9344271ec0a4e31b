import { describe, expect, it } from 'vitest';
import { checkRequest, type Grants, type Invocation, type SdkRequest } from '#infra/local/grants.ts';

/** Which AWS action a request of the SDK performs, and whether a row's grants cover it. */
const resources = {
  tableName: 'table',
  s3Host: '127.0.0.1:9000',
  bucketName: 'bucket',
  eventBusName: 'bus',
  masterKeySecretId: 'master-key',
  providerCredentialsSecretId: 'provider-credentials',
};
const invocation = (grants: Grants, ownQueue?: string): Invocation => ({
  functionName: 'fn',
  grants,
  ownQueue,
  resources,
});
const json = (target: string, body: unknown): SdkRequest => ({
  method: 'POST',
  hostname: '127.0.0.1',
  port: 8000,
  path: '/',
  headers: { 'x-amz-target': target },
  body: JSON.stringify(body),
});
const s3 = (method: string, path: string): SdkRequest => ({
  method,
  hostname: '127.0.0.1',
  port: 9000,
  path,
  headers: {},
});

describe('checkRequest', () => {
  it('grants readers the read actions of the stack, writers the write actions too, nobody Scan', () => {
    const reader = invocation({ table: 'read' });
    const writer = invocation({ table: 'write' });
    for (const op of ['GetItem', 'BatchGetItem', 'Query', 'DescribeTable']) {
      expect(
        checkRequest(json(`DynamoDB_20120810.${op}`, { TableName: 'table' }), reader).missing,
      ).toBeUndefined();
    }
    for (const op of ['PutItem', 'UpdateItem', 'DeleteItem']) {
      const request = json(`DynamoDB_20120810.${op}`, { TableName: 'table' });
      expect(checkRequest(request, reader)).toMatchObject({
        action: `dynamodb:${op}`,
        missing: expect.any(String),
      });
      expect(checkRequest(request, writer).missing).toBeUndefined();
    }
    const batch = json('DynamoDB_20120810.BatchWriteItem', { RequestItems: { table: [] } });
    expect(checkRequest(batch, writer).missing).toBeUndefined();
    for (const op of ['Scan', 'TransactWriteItems']) {
      expect(checkRequest(json(`DynamoDB_20120810.${op}`, { TableName: 'table' }), writer).missing).toMatch(
        /no row can declare/,
      );
    }
    expect(checkRequest(json('DynamoDB_20120810.GetItem', { TableName: 'other' }), writer).missing).toMatch(
      /table other/,
    );
  });

  it('grants S3 reads to bucket read and writes to bucket write only', () => {
    expect(checkRequest(s3('GET', '/bucket/key'), invocation({ table: 'read', bucket: 'read' }))).toEqual({
      action: 's3:GetObject',
    });
    expect(checkRequest(s3('HEAD', '/bucket/key'), invocation({ table: 'read' })).missing).toMatch(
      /no bucket/,
    );
    expect(
      checkRequest(s3('PUT', '/bucket/key'), invocation({ table: 'read', bucket: 'read' })).missing,
    ).toMatch(/needs bucket: 'write'/);
    expect(checkRequest(s3('DELETE', '/bucket/key'), invocation({ table: 'read', bucket: 'write' }))).toEqual(
      {
        action: 's3:DeleteObject',
      },
    );
  });

  it("refuses another bucket than the service's, as a role granted one bucket's ARN does", () => {
    expect(
      checkRequest(s3('GET', '/other-bucket/key'), invocation({ table: 'read', bucket: 'write' })).missing,
    ).toMatch(/bucket other-bucket is not the service's bucket/);
    expect(
      checkRequest(s3('GET', '/bucket?list-type=2'), invocation({ table: 'read', bucket: 'read' })),
    ).toEqual({ action: 's3:ListBucket' });
  });

  it('lets a function send to the queues it lists, and a worker consume only its own queue', () => {
    const send = json('AmazonSQS.SendMessage', { QueueUrl: 'http://x/000000000000/jobs' });
    expect(checkRequest(send, invocation({ table: 'read', queues: ['jobs'] })).missing).toBeUndefined();
    expect(checkRequest(send, invocation({ table: 'read', queues: ['other'] })).missing).toMatch(
      /queue jobs/,
    );
    const change = json('AmazonSQS.ChangeMessageVisibility', { QueueUrl: 'http://x/000000000000/jobs' });
    expect(checkRequest(change, invocation({ table: 'read' }, 'jobs')).missing).toBeUndefined();
    expect(checkRequest(change, invocation({ table: 'read' }, 'other')).missing).toMatch(/only the worker/);
  });

  it('lets PutEvents reach the project bus with events: true, and the master key with masterKey: true', () => {
    const put = (bus: string) => json('AWSEvents.PutEvents', { Entries: [{ EventBusName: bus }] });
    expect(checkRequest(put('bus'), invocation({ table: 'read', events: true })).missing).toBeUndefined();
    expect(checkRequest(put('default'), invocation({ table: 'read', events: true })).missing).toMatch(
      /not the project bus/,
    );
    expect(checkRequest(put('bus'), invocation({ table: 'read' })).missing).toMatch(/events: true/);
    const secret = json('secretsmanager.GetSecretValue', { SecretId: 'master-key' });
    expect(checkRequest(secret, invocation({ table: 'read', masterKey: true })).missing).toBeUndefined();
    expect(checkRequest(secret, invocation({ table: 'read' })).missing).toMatch(/masterKey: true/);
  });

  it('gives each secret to its own flag only: provider credentials need providerCredentials: true', () => {
    const secret = (id: string) => json('secretsmanager.GetSecretValue', { SecretId: id });
    const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:provider-credentials-local';
    const worker = invocation({ table: 'write', providerCredentials: true });
    expect(checkRequest(secret('provider-credentials'), worker).missing).toBeUndefined();
    expect(checkRequest(secret(arn), worker).missing).toBeUndefined();
    // The master key's flag does not cover it, nor does its own cover the master key.
    expect(
      checkRequest(secret('provider-credentials'), invocation({ table: 'write', masterKey: true })).missing,
    ).toBe('its row does not declare providerCredentials: true (the provider credentials)');
    expect(checkRequest(secret('provider-credentials'), invocation({ table: 'write' })).missing).toMatch(
      /providerCredentials: true/,
    );
    expect(checkRequest(secret('master-key'), worker).missing).toMatch(/masterKey: true/);
    expect(checkRequest(secret('another-secret'), worker).missing).toBe(
      "secret another-secret is not one of the service's secrets",
    );
  });

  it('refuses calls no row can grant', () => {
    const other: SdkRequest = { method: 'POST', hostname: 'lambda.local', path: '/', headers: {} };
    expect(checkRequest(other, invocation({ table: 'write' })).missing).toBe('no row grants this call');
  });
});

import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startDynalite } from '#infra/local/emulators.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/** DYNAMODB_ENDPOINT: the local runtime uses an emulator it did not start and creates its table there. */
let external: Emulator;
let service: TestService;

beforeAll(async () => {
  external = await startDynalite(undefined);
  service = await startTestService({ dynamodbEndpoint: external.endpoint, tableName: 'promptops-external' });
});
afterAll(async () => {
  await service?.stop();
  await external?.stop();
});

describe('an external DynamoDB endpoint', () => {
  it('gets the table created with its indexes and serves requests from it', async () => {
    const client = new DynamoDBClient({ endpoint: external.endpoint });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'promptops-external' }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([
      'GSI1',
      'GSI2',
      'GSI3',
    ]);

    const created = await service.call('POST', '/log-request', { body: logRequestBody() });
    expect(created.status).toBe(201);
    expect(service.dynamodbEndpoint).toBe(external.endpoint);
    expect(await service.countItems()).toBeGreaterThan(0);
  });
});

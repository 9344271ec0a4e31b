import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import {
  queryRequestLogs,
  requestLogKey,
  requestLogsByIds,
  updateRequestLog,
} from '#shared/request-logs/repository.ts';

/**
 * The request-log table access with DynamoDB mocked: retries of unprocessed batch keys, the optimistic
 * concurrency of updates, and the key conditions of index queries.
 */
process.env.TABLE_NAME = 'promptops-unit';
process.env.AWS_REGION ??= 'us-east-1';

const ddb = mockClient(DynamoDBDocumentClient);
const WS = 4;

const doc = (id: number, extra: Partial<RequestLogRecord> = {}) =>
  JSON.stringify({ id, workspace_id: WS, scores: {}, ...extra });
const item = (id: number, extra: Record<string, unknown> = {}) => ({
  ...requestLogKey(WS, id),
  doc: doc(id),
  ...extra,
});

async function collect<T>(source: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of source) out.push(...batch);
  return out;
}

beforeEach(() => ddb.reset());

describe('requestLogsByIds', () => {
  it('retries unprocessed keys and yields in the order asked, skipping missing ids', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { 'promptops-unit': [item(3)] },
        UnprocessedKeys: { 'promptops-unit': { Keys: [requestLogKey(WS, 1), requestLogKey(WS, 2)] } },
      })
      .resolvesOnce({ Responses: { 'promptops-unit': [item(1)] } });
    const records = await collect(requestLogsByIds(WS, [1, 2, 3]));
    expect(records.map((r) => r.id)).toEqual([1, 3]);
    const calls = ddb.commandCalls(BatchGetCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.RequestItems?.['promptops-unit']?.Keys).toEqual([
      requestLogKey(WS, 1),
      requestLogKey(WS, 2),
    ]);
  });

  it('asks for at most 100 keys per call', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { 'promptops-unit': [] } });
    await collect(
      requestLogsByIds(
        WS,
        Array.from({ length: 250 }, (_, i) => i + 1),
      ),
    );
    const sizes = ddb
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems?.['promptops-unit']?.Keys?.length);
    expect(sizes).toEqual([100, 100, 50]);
  });
});

describe('queryRequestLogs', () => {
  it('queries the partition between the time bounds, following pages', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(1)], LastEvaluatedKey: { PK: 'x' } })
      .resolvesOnce({ Items: [item(2)] });
    const records = await collect(
      queryRequestLogs(WS, { index: 'GSI2', promptId: 9, shard: 2 }, { from: 1000, to: 2000 }, 'desc'),
    );
    expect(records.map((r) => r.id)).toEqual([1, 2]);
    const [first, second] = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(first).toMatchObject({
      IndexName: 'GSI2',
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'GSI2PK', '#sk': 'GSI2SK' },
      ExpressionAttributeValues: {
        ':pk': `W#${WS}#RLP#9#2`,
        ':from': '000000000001000#0000000000000000',
        ':to': '000000000002000#9007199254740991',
      },
      ScanIndexForward: false,
    });
    expect(second?.ExclusiveStartKey).toEqual({ PK: 'x' });
  });
});

describe('updateRequestLog', () => {
  const conflict = Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' });

  it('writes conditionally on the version read and starts over when another writer won', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: item(1) })
      .resolvesOnce({ Item: item(1, { doc: doc(1, { scores: { other: 1 } }), docVersion: 1 }) });
    ddb.on(UpdateCommand).rejectsOnce(conflict).resolves({});
    const result = await updateRequestLog(WS, 1, (r) => ({ ...r, scores: { ...r.scores, mine: 2 } }));
    expect(result.scores).toEqual({ other: 1, mine: 2 });
    const [first, second] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(first?.ConditionExpression).toBe('attribute_exists(PK) AND attribute_not_exists(docVersion)');
    expect(first?.ExpressionAttributeValues?.[':next']).toBe(1);
    expect(second?.ConditionExpression).toBe('docVersion = :read');
    expect(second?.ExpressionAttributeValues).toMatchObject({ ':read': 1, ':next': 2 });
    expect(JSON.parse(second?.ExpressionAttributeValues?.[':body'])).toMatchObject({
      scores: { other: 1, mine: 2 },
    });
    expect(ddb.commandCalls(GetCommand).every((call) => call.args[0].input.ConsistentRead)).toBe(true);
  });

  it('writes nothing when the change leaves the record as it was', async () => {
    ddb.on(GetCommand).resolves({ Item: item(1) });
    const result = await updateRequestLog(WS, 1, (r) => ({ ...r }));
    expect(result.id).toBe(1);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('leaves the index keys alone when they do not change (an inline doc drops the S3 pointer and its head)', async () => {
    ddb.on(GetCommand).resolves({ Item: item(1) });
    ddb.on(UpdateCommand).resolves({});
    await updateRequestLog(WS, 1, (r) => ({ ...r, score: 5 }));
    const [update] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(update?.UpdateExpression).toBe('SET doc = :body, docVersion = :next REMOVE docKey, head');
  });

  it("moves the log to its prompt's GSI2 partition, in the same write, when a prompt is linked afterwards", async () => {
    const stored = { request_start_time: 1_700_000_000_000, status: 'SUCCESS', prompt_id: null };
    ddb.on(GetCommand).resolves({ Item: item(6, { doc: doc(6, stored as Partial<RequestLogRecord>) }) });
    ddb.on(UpdateCommand).resolves({});
    await updateRequestLog(WS, 6, (r) => ({ ...r, prompt_id: 12 }));
    const [update] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(update?.UpdateExpression).toBe(
      'SET doc = :body, docVersion = :next, GSI2PK = :GSI2PK, GSI2SK = :GSI2SK REMOVE docKey, head',
    );
    expect(update?.ExpressionAttributeValues).toMatchObject({
      ':GSI2PK': `W#${WS}#RLP#12#${6 % 4}`,
      ':GSI2SK': '001700000000000#0000000000000006',
    });
  });

  it('gives up with a 409 after repeated conflicts, and a 404 for an unknown log', async () => {
    ddb.on(GetCommand).resolves({ Item: item(1) });
    ddb.on(UpdateCommand).rejects(conflict);
    const change = (r: RequestLogRecord) => ({ ...r, score: 1 });
    await expect(updateRequestLog(WS, 1, change)).rejects.toMatchObject({ status: 409 });
    ddb.reset();
    ddb.on(GetCommand).resolves({});
    await expect(updateRequestLog(WS, 1, change)).rejects.toMatchObject({ status: 404 });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

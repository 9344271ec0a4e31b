import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batchGetItems, batchWriteItems } from '#shared/platform/batch.ts';

const TABLE = process.env.TABLE_NAME ?? 'promptops-unit';
const ddb = mockClient(DynamoDBDocumentClient);
const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ PK: `K#${i}`, SK: 'X' }));

beforeEach(() => {
  process.env.TABLE_NAME = TABLE;
  ddb.reset();
  // The retries' jittered backoff runs on fake time: the tests wait for no real delay.
  vi.useFakeTimers();
});
afterEach(() => {
  ddb.reset();
  vi.useRealTimers();
});

/** A batch call's outcome once its backoff timers have all run. */
async function afterBackoff<T>(call: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return call;
}

describe('batchGetItems', () => {
  it('reads 250 keys in chunks of 100 and returns every item', async () => {
    ddb
      .on(BatchGetCommand)
      .callsFake((input) => ({ Responses: { [TABLE]: input.RequestItems[TABLE].Keys } }));
    const items = await batchGetItems(keys(250), { consistent: true });
    expect(items).toHaveLength(250);
    const sizes = ddb
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems?.[TABLE]?.Keys?.length);
    expect(sizes).toEqual([100, 100, 50]);
    expect(ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.[TABLE]?.ConsistentRead).toBe(
      true,
    );
  });

  it('asks again for the keys DynamoDB left unprocessed', async () => {
    const all = keys(3);
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [all[0]!] },
        UnprocessedKeys: { [TABLE]: { Keys: [all[1]!, all[2]!] } },
      })
      .resolvesOnce({ Responses: { [TABLE]: [all[1]!, all[2]!] } });
    expect(await afterBackoff(batchGetItems(all))).toEqual(all);
  });

  it('gives up when keys stay unprocessed', async () => {
    const [key] = keys(1);
    ddb
      .on(BatchGetCommand)
      .resolves({ Responses: { [TABLE]: [] }, UnprocessedKeys: { [TABLE]: { Keys: [key!] } } });
    await afterBackoff(expect(batchGetItems([key!])).rejects.toThrow(/unprocessed/));
  });
});

describe('batchWriteItems', () => {
  it('writes 60 items in chunks of 25 and retries unprocessed writes', async () => {
    const puts = keys(60).map((Item) => ({ PutRequest: { Item } }));
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [puts[0]!] } })
      .resolves({});
    await afterBackoff(batchWriteItems(puts));
    const written = ddb
      .commandCalls(BatchWriteCommand)
      .flatMap((call) => call.args[0].input.RequestItems?.[TABLE] ?? []);
    expect(written).toHaveLength(61); // the unprocessed one twice
    expect(new Set(written.map((w) => JSON.stringify(w))).size).toBe(60);
  });
});

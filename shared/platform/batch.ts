import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from './dynamo.ts';

/**
 * BatchGetItem and BatchWriteItem over any number of keys or writes: chunked to DynamoDB's limits
 * (100 keys, 25 writes) and retrying what DynamoDB leaves unprocessed (throttling, 16 MB answers) with
 * jittered exponential backoff. One call per chunk when DynamoDB keeps up.
 */
type Item = Record<string, unknown>;
export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
const MAX_ATTEMPTS = 8;

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt) * Math.random()));

export async function batchGetItems(
  keys: Item[],
  options: { consistent?: boolean; projection?: string } = {},
) {
  const found: Item[] = [];
  let pending = keys;
  // Rounds in a row in which DynamoDB left something unprocessed: they back off, and too many fail.
  let retries = 0;
  while (pending.length > 0) {
    if (retries === MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
    if (retries > 0) await backoff(retries);
    const result = await dynamo.send(
      new BatchGetCommand({
        RequestItems: {
          [table()]: {
            Keys: pending.slice(0, GET_LIMIT),
            ConsistentRead: options.consistent,
            ProjectionExpression: options.projection,
          },
        },
      }),
    );
    found.push(...(result.Responses?.[table()] ?? []));
    const unprocessed = (result.UnprocessedKeys?.[table()]?.Keys ?? []) as Item[];
    retries = unprocessed.length > 0 ? retries + 1 : 0;
    pending = [...unprocessed, ...pending.slice(GET_LIMIT)];
  }
  return found;
}

export async function batchWriteItems(requests: WriteRequest[]): Promise<void> {
  let pending = requests;
  let retries = 0;
  while (pending.length > 0) {
    if (retries === MAX_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} writes unprocessed`);
    if (retries > 0) await backoff(retries);
    const result = await dynamo.send(
      new BatchWriteCommand({ RequestItems: { [table()]: pending.slice(0, WRITE_LIMIT) } }),
    );
    const unprocessed = (result.UnprocessedItems?.[table()] ?? []) as WriteRequest[];
    retries = unprocessed.length > 0 ? retries + 1 : 0;
    pending = [...unprocessed, ...pending.slice(WRITE_LIMIT)];
  }
}

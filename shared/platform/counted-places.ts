import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table, unlessConditionFails } from './dynamo.ts';

/**
 * A bounded number of things per workspace (webhooks, monitors): a counter attribute on one item that
 * a create takes a place in with a conditional ADD (below the limit) before it writes, so concurrent
 * creates cannot pass the limit, and that a delete (or a create that failed after taking it) gives back.
 */
export interface CountedPlaces {
  key: { PK: string; SK: string };
  attribute: string;
  max: number;
}

/** Takes one place; false when all are taken. */
export async function reservePlace({ key, attribute, max }: CountedPlaces): Promise<boolean> {
  const reserved = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': attribute },
        ExpressionAttributeValues: { ':one': 1, ':max': max },
      }),
    ),
  );
  return reserved !== undefined;
}

/** Gives one place back (never below zero). */
export async function releasePlace({ key, attribute }: CountedPlaces): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD #n :minus',
        ConditionExpression: '#n > :zero',
        ExpressionAttributeNames: { '#n': attribute },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    ),
  );
}

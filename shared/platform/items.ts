import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table, unlessConditionFails } from './dynamo.ts';

/**
 * Single-item reads and conditional writes over plain items, for repositories that keep their records
 * flat on the item: a failed condition is an answer (false), never an exception.
 */
type Item = Record<string, unknown>;
type Key = { PK: string; SK: string };

export interface ItemChange {
  set?: Item;
  remove?: readonly string[];
  /** A condition; `#name` refers to attribute `name`, `:value` to `values`. */
  condition?: string;
  values?: Item;
}

/** True when the write happened, false when its condition failed (a domain outcome the caller decides). */
const happened = async (write: Promise<object>): Promise<boolean> =>
  (await unlessConditionFails(write)) !== undefined;

/** Placeholders for the `#name`s of a condition. */
function conditionNames(condition: string | undefined, names: Record<string, string> = {}) {
  for (const [, attribute] of (condition ?? '').matchAll(/#(\w+)/g)) names[`#${attribute}`] = attribute!;
  return names;
}

/**
 * One UpdateItem; false when its condition fails. Every attribute goes through a name placeholder, so
 * reserved words (`name`, `columns`) need no care.
 */
export function updateItem(key: Key, change: ItemChange): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Item = { ...change.values };
  const sets = Object.entries(change.set ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([attribute, value]) => {
      names[`#${attribute}`] = attribute;
      values[`:set_${attribute}`] = value;
      return `#${attribute} = :set_${attribute}`;
    });
  const removes = (change.remove ?? []).map((attribute) => {
    names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  });
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return happened(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: expression,
        ConditionExpression: change.condition,
        ExpressionAttributeNames: conditionNames(change.condition, names),
        ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
      }),
    ),
  );
}

/** One DeleteItem; false when its condition fails. */
export function deleteItem(key: Key, condition?: string, values?: Item): Promise<boolean> {
  const names = conditionNames(condition);
  return happened(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: key,
        ConditionExpression: condition,
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/** One PutItem of a new item; false when an item with that key exists. */
export function putNewItem(item: Item & Key): Promise<boolean> {
  return happened(
    dynamo.send(
      new PutCommand({ TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
    ),
  );
}

export async function getItem(key: Key, consistent = true): Promise<Item | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: key, ConsistentRead: consistent }),
  );
  return Item;
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import type { RequestLogRecord } from './record.ts';

/**
 * Storage of request logs. One item per log, `W#<ws>#RL#<id>` / `RL`, holding the whole record as one
 * JSON string (`doc`): JSON keeps every value exactly as sent, has no nesting-depth limit (DynamoDB maps
 * stop at 32 levels) and is cheaper to write than a deep map. A record whose JSON would push the item
 * past ITEM_DOC_LIMIT_BYTES is written to S3 first and the item keeps the pointer (`docKey`), so a
 * crash between the two writes leaves only an unreferenced object, never a dangling item.
 *
 * Indexes (all keyed by the workspace, sorted by start time then id):
 * - GSI1 `W#<ws>#RL`: every log, for time-bounded searches;
 * - GSI2 `W#<ws>#RLP#<prompt_id>`: logs of one prompt (sparse: only logs that name a prompt);
 * - GSI3 `W#<ws>#RLS#<status>`: WARNING and ERROR logs (sparse: SUCCESS is the bulk, read via GSI1).
 */
export const ITEM_DOC_LIMIT_BYTES = 300_000;

export const requestLogKey = (workspaceId: number, id: number) => ({
  PK: `W#${workspaceId}#RL#${id}`,
  SK: 'RL',
});

/** Sort key of the time-ordered indexes: zero-padded start time, then id for a stable order. */
export const timeSortKey = (startMs: number, id: number) =>
  `${String(startMs).padStart(15, '0')}#${String(id).padStart(16, '0')}`;

export function requestLogIndexKeys(record: RequestLogRecord): Record<string, string> {
  const ws = record.workspace_id;
  const sort = timeSortKey(record.request_start_time, record.id);
  const keys: Record<string, string> = { GSI1PK: `W#${ws}#RL`, GSI1SK: sort };
  if (record.prompt_id != null)
    Object.assign(keys, { GSI2PK: `W#${ws}#RLP#${record.prompt_id}`, GSI2SK: sort });
  if (record.status !== 'SUCCESS')
    Object.assign(keys, { GSI3PK: `W#${ws}#RLS#${record.status}`, GSI3SK: sort });
  return keys;
}

const payloadObjectKey = (record: RequestLogRecord) =>
  `request-logs/${record.workspace_id}/${record.id}.json`;

export async function putRequestLog(record: RequestLogRecord): Promise<void> {
  const doc = JSON.stringify(record);
  let body: { doc: string } | { docKey: string } = { doc };
  if (Buffer.byteLength(doc, 'utf8') > ITEM_DOC_LIMIT_BYTES) {
    const docKey = payloadObjectKey(record);
    await putObject(docKey, doc);
    body = { docKey };
  }
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { ...requestLogKey(record.workspace_id, record.id), ...requestLogIndexKeys(record), ...body },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getRequestLog(workspaceId: number, id: number): Promise<RequestLogRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: requestLogKey(workspaceId, id) }),
  );
  return Item ? readDoc(Item) : undefined;
}

/** The record held by an item, fetching it from S3 when the item only points at it. */
export async function readDoc(item: Record<string, unknown>): Promise<RequestLogRecord> {
  const json = typeof item.doc === 'string' ? item.doc : await getObjectText(item.docKey as string);
  return JSON.parse(json) as RequestLogRecord;
}

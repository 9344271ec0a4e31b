import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '#shared/platform/batch.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { dynamo, isConditionFailed, table } from '#shared/platform/dynamo.ts';
import { tracePartition } from './repository.ts';

/**
 * Closed traces (PromptLayer's `close_after` and POST /traces/{id}/close): a `CLOSED` item in the trace's
 * partition, outside the `SP#` range a trace read queries. A closed trace takes no more spans: a later
 * write naming it is a 409 listing the closed trace ids. Closing twice keeps the first closing time.
 */
const closureKey = (workspaceId: number, traceId: string) => ({
  PK: tracePartition(workspaceId, traceId),
  SK: 'CLOSED',
});

export interface TraceClosure {
  trace_id: string;
  closed_at: number;
}

/** Closes these traces; answers each closure (the earlier one when a trace was closed already). */
export async function closeTraces(workspaceId: number, traceIds: readonly string[]): Promise<TraceClosure[]> {
  const closedAt = Date.now();
  const closures: TraceClosure[] = [];
  await forEachLimited([...new Set(traceIds)], 8, async (traceId) => {
    try {
      await dynamo.send(
        new PutCommand({
          TableName: table(),
          Item: { ...closureKey(workspaceId, traceId), closedAt },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      closures.push({ trace_id: traceId, closed_at: closedAt });
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const [earlier] = await closedTraces(workspaceId, [traceId]);
      closures.push(earlier ?? { trace_id: traceId, closed_at: closedAt });
    }
  });
  return closures;
}

/** Which of these traces are closed. */
export async function closedTraces(
  workspaceId: number,
  traceIds: readonly string[],
): Promise<TraceClosure[]> {
  if (traceIds.length === 0) return [];
  const items = await batchGetItems(
    [...new Set(traceIds)].map((traceId) => closureKey(workspaceId, traceId)),
    { projection: 'PK, closedAt', consistent: true },
  );
  const prefix = tracePartition(workspaceId, '');
  return items
    .map((item) => ({ trace_id: String(item.PK).slice(prefix.length), closed_at: Number(item.closedAt) }))
    .sort((a, b) => a.trace_id.localeCompare(b.trace_id));
}

import { randomUUID } from 'node:crypto';
import { batchGetItems } from '#shared/platform/batch.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { AppError, notFound } from '#shared/platform/errors.ts';
import { putNewItem } from '#shared/platform/items.ts';
import { querySpans, tracePartition } from './repository.ts';

/**
 * Closed traces (PromptLayer's `close_after` and POST /traces/{id}/close): a `CLOSED` item in the trace's
 * partition, outside the `SP#` range a trace read queries. A closed trace takes no more spans: a later
 * write naming it is a 409 listing the closed trace ids. Closing twice keeps the first closing time.
 */
const closureKey = (workspaceId: number, traceId: string) => ({
  PK: tracePartition(workspaceId, traceId),
  SK: 'CLOSED',
});

/**
 * A write naming closed traces: 409 with PromptLayer's body, `{error: "Trace already closed: <ids>",
 * trace_ids}` (its `error` is that sentence, as PromptLayer answers), besides our `success` and `message`.
 */
export class TracesClosedError extends AppError {
  constructor(traceIds: string[]) {
    const sentence = `Trace already closed: ${traceIds.join(', ')}`;
    super(409, sentence, sentence, undefined, { trace_ids: traceIds });
  }
}

/** Refuses a write naming any closed trace of these (409, nothing written). */
export async function refuseClosedTraces(workspaceId: number, traceIds: readonly string[]): Promise<void> {
  const closed = await closedTraces(workspaceId, traceIds);
  if (closed.length > 0) throw new TracesClosedError(closed.map((closure) => closure.trace_id));
}

export interface TraceClosure {
  id: string;
  trace_id: string;
  closed_at: number;
}

/** Closes these traces; answers each closure (the earlier one when a trace was closed already). */
export async function closeTraces(workspaceId: number, traceIds: readonly string[]): Promise<TraceClosure[]> {
  const closedAt = Date.now();
  const closures: TraceClosure[] = [];
  await forEachLimited([...new Set(traceIds)], 8, async (traceId) => {
    const closureId = randomUUID();
    if (await putNewItem({ ...closureKey(workspaceId, traceId), closureId, closedAt })) {
      closures.push({ id: closureId, trace_id: traceId, closed_at: closedAt });
      return;
    }
    const [earlier] = await closedTraces(workspaceId, [traceId]);
    closures.push(earlier ?? { id: closureId, trace_id: traceId, closed_at: closedAt });
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
    { projection: 'PK, closureId, closedAt', consistent: true },
  );
  const prefix = tracePartition(workspaceId, '');
  return items
    .map((item) => ({
      id: String(item.closureId),
      trace_id: String(item.PK).slice(prefix.length),
      closed_at: Number(item.closedAt),
    }))
    .sort((a, b) => a.trace_id.localeCompare(b.trace_id));
}

/**
 * POST /api/public/v2/traces/{trace_id}/close: closes a trace of the workspace (a 404 when it has no span
 * there, another workspace's included). Closing again answers the first closure.
 */
export async function closeTrace(workspaceId: number, traceId: string) {
  const { spans } = await querySpans(workspaceId, traceId, 1);
  if (spans.length === 0) throw notFound(`Trace ${traceId} not found`);
  const [closure] = await closeTraces(workspaceId, [traceId]);
  return {
    success: true as const,
    closure: {
      id: closure!.id,
      workspace_id: workspaceId,
      trace_id: traceId,
      status: 'closed' as const,
      created_at: new Date(closure!.closed_at).toISOString(),
    },
  };
}

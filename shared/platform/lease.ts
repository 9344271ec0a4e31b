import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table, unlessConditionFails } from './dynamo.ts';
import { logger } from './logger.ts';

/**
 * Claims of work items under a lease: one item per unit of work (a workflow node, a batch of report
 * rows) whose `status` goes QUEUED -> RUNNING -> (a final status of the caller's). A worker claims the
 * item with one conditional write (it becomes RUNNING under a new `attempt` and a `leaseUntil`), renews
 * the lease while it works, and writes its outcome conditioned on still holding that attempt, so a
 * stale worker (one whose lease lapsed and was taken over) can never overwrite the newer attempt. A
 * RUNNING item whose lease lapsed (its worker died) may be claimed again by the next delivery.
 *
 * Attributes used on the item: `status`, `attempt` (1 for the first claim), `leaseUntil` (epoch ms),
 * `startedAt` (epoch ms of the latest claim).
 */
export type Key = Record<string, unknown>;

/** A condition expression with the names and values it uses (placeholders unique to its author). */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export interface ClaimOptions {
  now: number;
  leaseMs: number;
  /** A further condition a QUEUED item must meet to be claimed (e.g. no predecessor left). */
  ready?: Condition;
  /** An item that does not exist yet reads as QUEUED (and is created by the claim). */
  absentIsQueued?: boolean;
  /** More attributes the claim sets (a `SET` list without the keyword), with its names and values. */
  alsoSet?: Condition;
}

/**
 * Claims an item: QUEUED (and `ready`), absent when `absentIsQueued`, or RUNNING with a lapsed lease
 * becomes RUNNING under a new lease and attempt. The item as claimed, or undefined when another worker
 * holds it, it is not ready, or it is final.
 */
export async function claimLease<T = Record<string, unknown>>(
  key: Key,
  options: ClaimOptions,
): Promise<T | undefined> {
  const queued = options.ready
    ? `(#lstatus = :lqueued AND ${options.ready.expression})`
    : '#lstatus = :lqueued';
  const absent = options.absentIsQueued ? 'attribute_not_exists(#lstatus) OR ' : '';
  const also = options.alsoSet ? `, ${options.alsoSet.expression}` : '';
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: `SET #lstatus = :lrunning, leaseUntil = :llease, startedAt = :lnow, attempt = if_not_exists(attempt, :lzero) + :lone${also}`,
        ConditionExpression: `${absent}${queued} OR (#lstatus = :lrunning AND leaseUntil < :lnow)`,
        ExpressionAttributeNames: {
          '#lstatus': 'status',
          ...options.ready?.names,
          ...options.alsoSet?.names,
        },
        ExpressionAttributeValues: {
          ':lrunning': 'RUNNING',
          ':lqueued': 'QUEUED',
          ':llease': options.now + options.leaseMs,
          ':lnow': options.now,
          ':lzero': 0,
          ':lone': 1,
          ...options.ready?.values,
          ...options.alsoSet?.values,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes as T | undefined;
}

/** The condition of a write by the attempt that holds the claim (RUNNING under that attempt). */
export function heldBy(attempt: number): Required<Condition> {
  return {
    expression: '#lstatus = :lrunning AND attempt = :lattempt',
    names: { '#lstatus': 'status' },
    values: { ':lrunning': 'RUNNING', ':lattempt': attempt },
  };
}

/** Extends the lease of the attempt that holds an item (a no-op once it is final or taken over). */
export async function renewLease(key: Key, attempt: number, leaseUntil: number): Promise<void> {
  const held = heldBy(attempt);
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET leaseUntil = :llease',
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: { ...held.values, ':llease': leaseUntil },
      }),
    ),
  );
}

/** Gives the lease of a claimed item up at once (its attempt threw), so the next delivery may claim it. */
export async function releaseLease(key: Key, attempt: number): Promise<void> {
  await renewLease(key, attempt, 0);
}

/**
 * Renews a lease every `everyMs` until the answered stop function is called (a timer that does not
 * keep the process alive); a failed renewal is logged, the next one tries again.
 */
export function keepLeased(
  renew: () => Promise<void>,
  everyMs: number,
  what = 'work item',
  keys: Record<string, unknown> = {},
): () => void {
  const timer = setInterval(() => {
    renew().catch((error: unknown) =>
      logger.warn('Lease not renewed', { what, ...keys, error: error as Error }),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

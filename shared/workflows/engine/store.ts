import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchWriteItems } from '#shared/platform/batch.ts';
import { groupCommit } from '#shared/platform/concurrency.ts';
import { ENV } from '#shared/platform/config.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import {
  claimLease,
  heldBy,
  releaseLease as releaseItemLease,
  renewLease as renewItemLease,
} from '#shared/platform/lease.ts';
import { loadJson } from '#shared/platform/stored-json.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { EXECUTION_OBJECT_PREFIX, EXECUTION_RETENTION_DAYS } from './limits.ts';
import { type FinalStatus, isFinal, type NodeStatus } from './readiness.ts';

/**
 * The items of a workflow execution, one partition per execution:
 *
 *   PK `W#<ws>#WFX#<executionId>`  SK `META`          the run (workflow and version, input variables,
 *                                                     status RUNNING|COMPLETE, deadline, sinks left)
 *   PK `W#<ws>#WFX#<executionId>`  SK `N#<node name>`  one node (status, fan-in counters, lease, value)
 *
 * While the run is unfinished (and until its end is reported) the META item sits in a sparse index,
 * GSI1 `WFXOPEN#<shard>` ordered by creation, which the watchdog reads. Every META is also in GSI2
 * `W#<ws>#WFRUNS#<workflowId>` ordered by creation (`<ISO time>#<executionId>`): a workflow's runs. Values and input variables
 * over 64 KB live in S3 under `workflow-executions/<ws>/<executionId>/`. Everything expires after
 * EXECUTION_RETENTION_DAYS (the bucket's lifecycle rule does the same for the objects).
 */
export const OPEN_SHARDS = 4;
const OPEN_PREFIX = 'WFXOPEN#';

export const executionPartition = (ws: number, executionId: number) => `W#${ws}#WFX#${executionId}`;
export const metaKey = (ws: number, executionId: number) => ({
  PK: executionPartition(ws, executionId),
  SK: 'META',
});
export const nodeKey = (ws: number, executionId: number, node: string) => ({
  PK: executionPartition(ws, executionId),
  SK: `N#${node}`,
});

export interface ExecutionMeta {
  workspaceId: number;
  executionId: number;
  workflowId: number;
  workflowName: string;
  versionId: number;
  versionNumber: number;
  /** Inline (JSON) when small, else the S3 key. */
  inputsJson?: string;
  inputsKey?: string;
  returnAllOutputs: boolean;
  callbackUrl: string | null;
  metadata: Record<string, unknown> | null;
  status: 'RUNNING' | 'COMPLETE';
  /** Epoch milliseconds. */
  createdAt: number;
  deadline: number;
  timeoutSeconds: number;
  /** Nodes without successors not yet final: the run is complete when none is left. */
  sinksLeft: number;
  finishedAt?: number;
  /** Set once `agent_run_finished` and the callback are handed over; the META leaves the index then. */
  notifiedAt?: number;
  /** What was reported with it (absent: a run the watchdog gave up on). */
  outcome?: FinalStatus;
}

export interface NodeItem {
  name: string;
  /** Position in the version's node list. */
  order: number;
  isOutput: boolean;
  status: NodeStatus;
  /** Predecessors not yet counted. */
  pending: number;
  resolved?: Set<string>;
  taken?: number;
  skipped?: number;
  failedDeps?: Set<string>;
  /** Successors whose edge from this node was taken (written with a SUCCESS). */
  takenTo?: Set<string>;
  attempt?: number;
  leaseUntil?: number;
  valueJson?: string;
  valueKey?: string;
  error_message?: string | null;
  raw_error_message?: string | null;
  startedAt?: number;
  finishedAt?: number;
}

const expiresAt = (now: number) => Math.floor(now / 1000) + EXECUTION_RETENTION_DAYS * 86_400;
const openIndexKeys = (meta: Pick<ExecutionMeta, 'executionId' | 'workspaceId' | 'createdAt'>) => ({
  GSI1PK: `${OPEN_PREFIX}${meta.executionId % OPEN_SHARDS}`,
  GSI1SK: `${new Date(meta.createdAt).toISOString()}#${meta.workspaceId}#${meta.executionId}`,
});

const runListPartition = (ws: number, workflowId: number) => `W#${ws}#WFRUNS#${workflowId}`;
const runListSortKey = (createdAt: number, executionId: number) =>
  `${new Date(createdAt).toISOString()}#${String(executionId).padStart(16, '0')}`;
const runListKeys = (
  meta: Pick<ExecutionMeta, 'executionId' | 'workspaceId' | 'workflowId' | 'createdAt'>,
) => ({
  GSI2PK: runListPartition(meta.workspaceId, meta.workflowId),
  GSI2SK: runListSortKey(meta.createdAt, meta.executionId),
});

/** Where a page of a workflow's runs ends: the next page starts after this run. */
export interface RunListPosition {
  createdAt: number;
  executionId: number;
}

/** The fields of a run a list shows (not its inputs, which may be 64 KB). */
export type ListedRun = Pick<
  ExecutionMeta,
  | 'executionId'
  | 'versionId'
  | 'versionNumber'
  | 'status'
  | 'createdAt'
  | 'finishedAt'
  | 'notifiedAt'
  | 'outcome'
>;

/** A workflow's runs, newest first, `limit` at a time after `after` (one Query). */
export async function listExecutions(
  ws: number,
  workflowId: number,
  limit: number,
  after?: RunListPosition,
): Promise<{ runs: ListedRun[]; next: RunListPosition | null }> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': runListPartition(ws, workflowId) },
      ProjectionExpression:
        'PK, SK, GSI2PK, GSI2SK, executionId, versionId, versionNumber, #status, createdAt, finishedAt, notifiedAt, outcome',
      ExpressionAttributeNames: { '#status': 'status' },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: after && {
        ...metaKey(ws, after.executionId),
        GSI2PK: runListPartition(ws, workflowId),
        GSI2SK: runListSortKey(after.createdAt, after.executionId),
      },
    }),
  );
  const runs = (result.Items ?? []) as ListedRun[];
  const last = runs.at(-1);
  return {
    runs,
    next:
      result.LastEvaluatedKey && last ? { createdAt: last.createdAt, executionId: last.executionId } : null,
  };
}

export const nodeValue = (item: Pick<NodeItem, 'valueJson' | 'valueKey'>) =>
  loadJson({ json: item.valueJson, key: item.valueKey });
export const executionInputs = async (meta: Pick<ExecutionMeta, 'inputsJson' | 'inputsKey'>) =>
  ((await loadJson({ json: meta.inputsJson, key: meta.inputsKey })) ?? {}) as Record<string, unknown>;

const objectBase = (ws: number, executionId: number) => `${EXECUTION_OBJECT_PREFIX}${ws}/${executionId}/`;
export const inputsObjectKey = (ws: number, executionId: number) =>
  `${objectBase(ws, executionId)}inputs.json`;
/** Per node and attempt: a stale attempt never overwrites the object the winning one points to. */
export const valueObjectKey = (ws: number, executionId: number, node: string, attempt: number) =>
  `${objectBase(ws, executionId)}nodes/${createHash('sha256').update(node).digest('hex')}/${attempt}.json`;

/** Writes a new execution: its nodes first, then the META (which makes it visible to the watchdog). */
export async function createExecution(meta: ExecutionMeta, nodes: NodeItem[]): Promise<void> {
  const ttl = expiresAt(meta.createdAt);
  await batchWriteItems(
    nodes.map((node) => ({
      PutRequest: {
        Item: { ...nodeKey(meta.workspaceId, meta.executionId, node.name), ...node, expiresAt: ttl },
      },
    })),
  );
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...metaKey(meta.workspaceId, meta.executionId),
        ...meta,
        ...openIndexKeys(meta),
        ...runListKeys(meta),
        expiresAt: ttl,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** Every item of one execution in one Query (paged past 1 MB): its META and its nodes. */
export async function readExecution(
  ws: number,
  executionId: number,
): Promise<{ meta: ExecutionMeta; nodes: NodeItem[] } | undefined> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': executionPartition(ws, executionId) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return executionOf(items);
}

/** The META and the node items (in the version's order) among an execution's items. */
function executionOf(
  items: readonly Record<string, unknown>[],
): { meta: ExecutionMeta; nodes: NodeItem[] } | undefined {
  const meta = items.find((item) => item.SK === 'META') as ExecutionMeta | undefined;
  if (!meta) return undefined;
  const nodes = (items.filter((item) => item.SK !== 'META') as unknown as NodeItem[]).sort(
    (a, b) => a.order - b.order,
  );
  return { meta, nodes };
}

/**
 * The META and the named nodes of one execution, in one BatchGetItem: what the end of a run reads when
 * it reports only its output nodes (a Query would read every node).
 */
export async function readExecutionNodes(
  ws: number,
  executionId: number,
  names: readonly string[],
): Promise<{ meta: ExecutionMeta; nodes: NodeItem[] } | undefined> {
  const keys = [metaKey(ws, executionId), ...names.map((name) => nodeKey(ws, executionId, name))];
  return executionOf(await batchGetItems(keys, { consistent: true }));
}

export async function getNode(ws: number, executionId: number, node: string): Promise<NodeItem | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: nodeKey(ws, executionId, node), ConsistentRead: true }),
  );
  return Item as NodeItem | undefined;
}

export async function getMeta(ws: number, executionId: number): Promise<ExecutionMeta | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: metaKey(ws, executionId), ConsistentRead: true }),
  );
  return Item as ExecutionMeta | undefined;
}

/** What a run's nodes read of its META: set when the run starts, never changed after. */
export type RunSettings = Pick<ExecutionMeta, 'inputsJson' | 'inputsKey' | 'deadline' | 'timeoutSeconds'>;
/** What a node's successors read of it once it is final: no write leaves a final status. */
export type FinalNode = Pick<NodeItem, 'status' | 'valueJson' | 'valueKey'>;

/**
 * What this container learnt of the runs it worked on, so that a node does not read again what cannot
 * have changed: a run's settings, and its final nodes (those finished here, and those read here). The
 * successors of a node that runs in the same container (locally, every one; in AWS, the records of a
 * batch and the batches a warm container takes next) skip the read of their inputs. A value over
 * KNOWN_VALUE_LIMIT_BYTES is read again each time, so that the cache stays small.
 */
const knownSettings = new TtlCache<RunSettings>(10 * 60_000, 200);
const knownFinalNodes = new TtlCache<FinalNode>(10 * 60_000, 1_000);
const KNOWN_VALUE_LIMIT_BYTES = 16 * 1024;
// The endpoint and table are part of the key: a test may start a fresh local table, whose ids repeat.
const knownKey = (ws: number, executionId: number, sortKey: string) =>
  `${process.env[ENV.dynamodbEndpoint] ?? ''}#${table()}#${executionPartition(ws, executionId)}#${sortKey}`;

/** Keeps a node this container saw final (a value too large to keep is read again when needed). */
export function rememberFinalNode(ws: number, executionId: number, name: string, node: FinalNode): void {
  if (!isFinal(node.status) || (node.valueJson?.length ?? 0) > KNOWN_VALUE_LIMIT_BYTES) return;
  const { status, valueJson, valueKey } = node;
  knownFinalNodes.set(knownKey(ws, executionId, `N#${name}`), { status, valueJson, valueKey });
}

/**
 * What a worker needs to run a node: the run's settings and its named (final) dependencies, from what
 * this container knows, the rest in one BatchGetItem (none when it knows them all).
 */
export async function getRunInputs(
  ws: number,
  executionId: number,
  names: readonly string[],
): Promise<{ meta: RunSettings | undefined; nodes: Map<string, FinalNode> }> {
  const metaId = knownKey(ws, executionId, 'META');
  let meta = knownSettings.get(metaId);
  const nodes = new Map<string, FinalNode>();
  const missing: string[] = [];
  for (const name of names) {
    const known = knownFinalNodes.get(knownKey(ws, executionId, `N#${name}`));
    if (known) nodes.set(name, known);
    else missing.push(name);
  }
  if (meta && missing.length === 0) return { meta, nodes };
  const keys = missing.map((name) => nodeKey(ws, executionId, name));
  const items = await batchGetItems(meta ? keys : [metaKey(ws, executionId), ...keys], { consistent: true });
  for (const item of items) {
    if (item.SK === 'META') {
      const { inputsJson, inputsKey, deadline, timeoutSeconds } = item as unknown as ExecutionMeta;
      meta = { inputsJson, inputsKey, deadline, timeoutSeconds };
      knownSettings.set(metaId, meta);
    } else {
      const node = item as unknown as NodeItem;
      nodes.set(node.name, node);
      rememberFinalNode(ws, executionId, node.name, node);
    }
  }
  return { meta, nodes };
}

/**
 * Claims a ready node (the lease module's claim): QUEUED with no predecessor left, or RUNNING with an
 * expired lease, becomes RUNNING under a new lease and attempt. With `after` (the message of the node's
 * only predecessor, which is final and did not count itself), a QUEUED node that still counts that
 * predecessor is ready too, and the claim writes the count (pending 0, the source resolved, its edge
 * taken) as the predecessor would have. The claimed item, or undefined when another worker holds it,
 * it is not ready, or it is final.
 */
export async function claimNode(
  ws: number,
  executionId: number,
  node: string,
  now: number,
  leaseMs: number,
  after?: SoleParent,
): Promise<NodeItem | undefined> {
  return claimLease<NodeItem>(nodeKey(ws, executionId, node), {
    now,
    leaseMs,
    ready: readyToRun(after),
    alsoSet: after && soleParentCount(after),
  });
}

/** The message of a node's only predecessor, which is final and left the count to the node's claim. */
export interface SoleParent {
  node: string;
  /** Whether the predecessor took its edge to the node. */
  taken: boolean;
}

/** A QUEUED node may run: no predecessor left to count, or only the one whose message this is. */
const readyToRun = (after: SoleParent | undefined) => ({
  expression: '#pending <= :mostPending',
  names: { '#pending': 'pending' },
  values: { ':mostPending': after ? 1 : 0 },
});

/** The count its only predecessor left to a node's claim, as `countPredecessor` would have written it. */
const soleParentCount = (after: SoleParent) => ({
  expression: '#pending = :noPending, resolved = :after, taken = :taken',
  names: { '#pending': 'pending' },
  values: { ':noPending': 0, ':after': new Set([after.node]), ':taken': after.taken ? 1 : 0 },
});

/** Extends the lease of the attempt that runs a node (a no-op once the node is final or taken over). */
export async function renewLease(
  ws: number,
  executionId: number,
  node: string,
  attempt: number,
  leaseUntil: number,
): Promise<void> {
  await renewItemLease(nodeKey(ws, executionId, node), attempt, leaseUntil);
}

/** Gives a claimed node's lease up at once (its attempt threw), so the next delivery may claim it. */
export async function releaseLease(
  ws: number,
  executionId: number,
  node: string,
  attempt: number,
): Promise<void> {
  await releaseItemLease(nodeKey(ws, executionId, node), attempt);
}

export interface NodeOutcome {
  status: FinalStatus;
  valueJson?: string;
  valueKey?: string;
  error_message?: string | null;
  raw_error_message?: string | null;
  takenTo?: Set<string>;
}

/**
 * A compute-only node run without a claim: when it started, and the message of its only predecessor
 * when that one sent it.
 */
export interface Unclaimed {
  startedAt: number;
  after?: SoleParent;
}

/**
 * Makes a node final. `from` says which state the write may leave: the claimed attempt (a stale worker
 * cannot overwrite a newer attempt), a ready QUEUED node run without a claim (or one whose claim
 * lapsed), QUEUED (a skip decided by a predecessor), or any unfinished state (the watchdog). Answers
 * whether this write made it final.
 */
export async function finishNode(
  ws: number,
  executionId: number,
  node: string,
  outcome: NodeOutcome,
  from: { attempt: number } | { unclaimed: Unclaimed } | 'QUEUED' | 'UNFINISHED',
  now: number,
): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {
    ':status': outcome.status,
    ':now': now,
    ':error': outcome.error_message ?? null,
    ':raw': outcome.raw_error_message ?? null,
  };
  const sets = [
    '#status = :status',
    'finishedAt = :now',
    'error_message = :error',
    'raw_error_message = :raw',
  ];
  const removes = ['leaseUntil'];
  if (outcome.valueKey !== undefined) {
    sets.push('valueKey = :key');
    values[':key'] = outcome.valueKey;
    removes.push('valueJson');
  } else {
    sets.push('valueJson = :json');
    values[':json'] = outcome.valueJson ?? 'null';
    removes.push('valueKey');
  }
  if (outcome.takenTo?.size) {
    sets.push('takenTo = :takenTo');
    values[':takenTo'] = outcome.takenTo;
  }
  let condition: string;
  if (from === 'QUEUED') {
    condition = '#status = :queued';
    values[':queued'] = 'QUEUED';
  } else if (from === 'UNFINISHED') {
    condition = '#status IN (:queued, :running)';
    values[':queued'] = 'QUEUED';
    values[':running'] = 'RUNNING';
  } else if ('unclaimed' in from) {
    const { startedAt, after } = from.unclaimed;
    const ready = readyToRun(after);
    condition = `(#status = :queued AND ${ready.expression}) OR (#status = :running AND leaseUntil < :now)`;
    sets.push('attempt = if_not_exists(attempt, :zero) + :one', 'startedAt = :startedAt');
    Object.assign(names, ready.names);
    Object.assign(values, ready.values, {
      ':queued': 'QUEUED',
      ':running': 'RUNNING',
      ':zero': 0,
      ':one': 1,
      ':startedAt': startedAt,
    });
    if (after) {
      const count = soleParentCount(after);
      sets.push(count.expression);
      Object.assign(values, count.values);
    }
  } else {
    const held = heldBy(from.attempt);
    condition = held.expression;
    Object.assign(names, held.names);
    Object.assign(values, held.values);
  }
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: nodeKey(ws, executionId, node),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    ),
  );
  return result !== undefined;
}

/** What a final predecessor leaves on a successor. */
export interface PredecessorCount {
  /** Its edge into the successor was taken. */
  taken: boolean;
  skipped: boolean;
  /** It FAILED and is one of the successor's dependencies. */
  failedDependency: boolean;
}

/**
 * What counting a predecessor answers: the successor as the count left it (the caller settles it),
 * `counted` (counted in one write with other predecessors, whose first caller settles it), or
 * undefined when this source was counted before (a redelivery).
 */
export type Counted = NodeItem | 'counted' | undefined;

interface CountEntry {
  ws: number;
  executionId: number;
  target: string;
  source: string;
  counts: PredecessorCount;
}

/** Sources counted in one write at most (each adds a term to its condition). */
const MAX_COUNTS_PER_WRITE = 25;

/**
 * Counts a final predecessor on a successor, once: `pending` down by one, the source added to
 * `resolved`, and what the source left (an edge taken, a skip, a failed dependency). Counts on one
 * successor that arrive while one is in flight (the branches of a fan-in ending together) go in one
 * write; should one of its sources have been counted before, each is written alone.
 */
export function countPredecessor(
  ws: number,
  executionId: number,
  target: string,
  source: string,
  counts: PredecessorCount,
): Promise<Counted> {
  return countTogether(knownKey(ws, executionId, `N#${target}`), { ws, executionId, target, source, counts });
}

const countTogether = groupCommit<CountEntry, Counted>(MAX_COUNTS_PER_WRITE, async (entries) => {
  // A source twice in one group (a redelivery racing its first delivery) counts once.
  const firstOf = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!firstOf.has(entry.source)) firstOf.set(entry.source, i);
  });
  const distinct = [...firstOf.values()].map((i) => entries[i]!);
  const together = distinct.length > 1 ? await writeCounts(distinct) : undefined;
  const answers: Counted[] = together
    ? distinct.map((_, i) => (i === 0 ? together : 'counted'))
    : await Promise.all(distinct.map((entry) => writeCounts([entry])));
  const answerOf = new Map(distinct.map((entry, i) => [entry.source, answers[i]]));
  return entries.map((entry, i) =>
    firstOf.get(entry.source) === i ? answerOf.get(entry.source) : undefined,
  );
});

/** One write of the counts of distinct sources: the successor as it is now, or undefined when one was counted before. */
async function writeCounts(entries: CountEntry[]): Promise<NodeItem | undefined> {
  const { ws, executionId, target } = entries[0]!;
  const sources = entries.map((entry) => entry.source);
  const adds = ['#pending :minus', 'resolved :sources'];
  const values: Record<string, unknown> = { ':minus': -entries.length, ':sources': new Set(sources) };
  const taken = entries.filter((entry) => entry.counts.taken).length;
  if (taken) {
    adds.push('taken :taken');
    values[':taken'] = taken;
  }
  const skipped = entries.filter((entry) => entry.counts.skipped).length;
  if (skipped) {
    adds.push('skipped :skipped');
    values[':skipped'] = skipped;
  }
  const failed = entries.filter((entry) => entry.counts.failedDependency).map((entry) => entry.source);
  if (failed.length) {
    adds.push('failedDeps :failed');
    values[':failed'] = new Set(failed);
  }
  const uncounted = sources.map((source, i) => {
    values[`:s${i}`] = source;
    return `NOT contains(resolved, :s${i})`;
  });
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: nodeKey(ws, executionId, target),
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ConditionExpression: `attribute_exists(PK) AND (attribute_not_exists(resolved) OR (${uncounted.join(' AND ')}))`,
        ExpressionAttributeNames: { '#pending': 'pending' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes as NodeItem | undefined;
}

/**
 * Counts a final node without successors on the META, once. The META as it is now, or undefined when
 * this node was counted before.
 */
export async function countSink(
  ws: number,
  executionId: number,
  node: string,
): Promise<ExecutionMeta | undefined> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: metaKey(ws, executionId),
        UpdateExpression: 'ADD sinksLeft :minusOne, sinksDone :node',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(sinksDone) OR NOT contains(sinksDone, :name))',
        ExpressionAttributeValues: { ':minusOne': -1, ':node': new Set([node]), ':name': node },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes as ExecutionMeta | undefined;
}

/** The one write that ends a run: RUNNING -> COMPLETE. Answers whether this caller won it. */
export async function completeExecution(ws: number, executionId: number, now: number): Promise<boolean> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: metaKey(ws, executionId),
        UpdateExpression: 'SET #status = :complete, finishedAt = :now',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':complete': 'COMPLETE', ':running': 'RUNNING', ':now': now },
      }),
    ),
  );
  return result !== undefined;
}

/** The run's end was reported (with its outcome): the META leaves the watchdog's index. */
export async function markNotified(
  ws: number,
  executionId: number,
  now: number,
  outcome?: FinalStatus,
): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: metaKey(ws, executionId),
        UpdateExpression: `SET notifiedAt = :now${outcome ? ', outcome = :outcome' : ''} REMOVE GSI1PK, GSI1SK`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': now, ...(outcome ? { ':outcome': outcome } : {}) },
      }),
    ),
  );
}

/** Unfinished (or unreported) executions created before `before`, oldest first, `limit` per shard. */
export async function openExecutions(before: number, limit: number): Promise<ExecutionMeta[]> {
  const shards = await Promise.all(
    Array.from({ length: OPEN_SHARDS }, (_, shard) =>
      dynamo.send(
        new QueryCommand({
          TableName: table(),
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
          ExpressionAttributeValues: {
            ':pk': `${OPEN_PREFIX}${shard}`,
            ':before': new Date(before).toISOString(),
          },
          Limit: limit,
        }),
      ),
    ),
  );
  return shards.flatMap((page) => (page.Items ?? []) as ExecutionMeta[]);
}

import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { type CountedPlaces, releasePlace, reservePlace } from '#shared/platform/counted-places.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { getItem } from '#shared/platform/items.ts';
import { TTL_ATTRIBUTE } from '#shared/platform/table-schema.ts';
import type { GroupState, Transition } from './decide.ts';
import {
  type Comparison,
  type Dimension,
  MAX_MONITORS_PER_WORKSPACE,
  type Metric,
  type MonitorFilter,
} from './validation.ts';

/**
 * Table access for monitors and their state.
 *
 * - A workspace's monitors share one partition `W#<ws>#MON` (sort key `MON#<id>`, at most 100), with
 *   the workspace's monitor counter `COUNT` beside them (a create takes a place first).
 * - An active monitor is also in a sparse index, GSI1 `MONACTIVE#<id mod 4>` / `<ws>#<id>`: the
 *   evaluator reads every workspace's active monitors from those four partitions (the index projects
 *   the whole item, so no further read), never by scanning. Turning a monitor off removes the keys.
 * - A monitor's state: one item per group (the whole monitor without a group_by) in the partition
 *   `W#<ws>#MONS#<monitorId>`, sort key `ALL` or `G#<value>` (a long value by its hash). Absent is ok.
 *   Every transition is a conditional update on `seq`, so two evaluations racing make one transition;
 *   the item carries the event of its last transition until it is recorded (`pendingEvent`). An ok
 *   item expires a day after its cool-down ended (absent means the same then); a triggered one stays.
 */
type Item = Record<string, unknown>;

export const ACTIVE_SHARDS = 4;
const ACTIVE_PREFIX = 'MONACTIVE#';
/** Group values longer than this are keyed by their hash (a sort key holds at most 1 KB). */
const MAX_KEYED_VALUE_LENGTH = 200;

export interface MonitorRecord {
  id: number;
  workspaceId: number;
  name: string;
  metric: Metric;
  filter: MonitorFilter | null;
  groupBy: Dimension | null;
  windowMinutes: number;
  threshold: number;
  comparison: Comparison;
  cooldownMinutes: number;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

const monitorsPartition = (workspaceId: number) => `W#${workspaceId}#MON`;
const monitorKey = (workspaceId: number, id: number) => ({
  PK: monitorsPartition(workspaceId),
  SK: `MON#${id}`,
});
const monitorPlaces = (workspaceId: number): CountedPlaces => ({
  key: { PK: monitorsPartition(workspaceId), SK: 'COUNT' },
  attribute: 'monitorCount',
  max: MAX_MONITORS_PER_WORKSPACE,
});
const activeIndexKeys = (workspaceId: number, id: number) => ({
  GSI1PK: `${ACTIVE_PREFIX}${id % ACTIVE_SHARDS}`,
  GSI1SK: `${workspaceId}#${id}`,
});

function monitorFromItem(item: Item): MonitorRecord {
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    name: String(item.name),
    metric: item.metric as Metric,
    filter: (item.filter as MonitorFilter | null | undefined) ?? null,
    groupBy: (item.groupBy as Dimension | null | undefined) ?? null,
    windowMinutes: Number(item.windowMinutes),
    threshold: Number(item.threshold),
    comparison: item.comparison as Comparison,
    cooldownMinutes: Number(item.cooldownMinutes),
    isActive: item.isActive === true,
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
  };
}

// ---- monitors ----

export const reserveMonitorPlace = (workspaceId: number) => reservePlace(monitorPlaces(workspaceId));
export const releaseMonitorPlace = (workspaceId: number) => releasePlace(monitorPlaces(workspaceId));

export async function putMonitor(record: MonitorRecord): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...monitorKey(record.workspaceId, record.id),
        ...(record.isActive ? activeIndexKeys(record.workspaceId, record.id) : {}),
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getMonitor(workspaceId: number, id: number): Promise<MonitorRecord | undefined> {
  const item = await getItem(monitorKey(workspaceId, id));
  return item ? monitorFromItem(item) : undefined;
}

/** Every monitor of the workspace, oldest first (one Query of a partition of at most 101 items). */
export async function listMonitors(workspaceId: number): Promise<MonitorRecord[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': monitorsPartition(workspaceId), ':prefix': 'MON#' },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.map(monitorFromItem).sort((a, b) => a.id - b.id);
}

export type MonitorChanges = Partial<
  Pick<MonitorRecord, 'name' | 'windowMinutes' | 'threshold' | 'comparison' | 'cooldownMinutes' | 'isActive'>
>;

/** Sets the given fields (and `updatedAt`), keeping the active index in step; undefined when absent. */
export async function updateMonitor(
  workspaceId: number,
  id: number,
  changes: MonitorChanges,
  now = Date.now(),
): Promise<MonitorRecord | undefined> {
  const fields: [string, unknown][] = Object.entries({ ...changes, updatedAt: now }).filter(
    ([, value]) => value !== undefined,
  );
  if (changes.isActive === true) fields.push(...Object.entries(activeIndexKeys(workspaceId, id)));
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  fields.forEach(([name, value], index) => {
    names[`#f${index}`] = name;
    values[`:v${index}`] = value;
  });
  const sets = `SET ${fields.map((_, index) => `#f${index} = :v${index}`).join(', ')}`;
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: monitorKey(workspaceId, id),
        UpdateExpression: changes.isActive === false ? `${sets} REMOVE GSI1PK, GSI1SK` : sets,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes ? monitorFromItem(result.Attributes) : undefined;
}

/** Deletes the monitor (its place given back); false when there was none. Its state goes after it. */
export async function deleteMonitor(workspaceId: number, id: number): Promise<boolean> {
  const deleted = await unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: monitorKey(workspaceId, id),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    ),
  );
  if (deleted === undefined) return false;
  await releaseMonitorPlace(workspaceId);
  const states = await queryStateItems(workspaceId, id);
  await batchWriteItems(states.map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })));
  return true;
}

/** Every workspace's active monitors: the four partitions of the sparse index, all pages. */
export async function activeMonitors(): Promise<{ monitors: MonitorRecord[]; queries: number }> {
  let queries = 0;
  const shards = await Promise.all(
    Array.from({ length: ACTIVE_SHARDS }, async (_, shard) => {
      const items: Item[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        queries++;
        const page: QueryCommandOutput = await dynamo.send(
          new QueryCommand({
            TableName: table(),
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :pk',
            ExpressionAttributeValues: { ':pk': `${ACTIVE_PREFIX}${shard}` },
            ExclusiveStartKey: start,
          }),
        );
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    }),
  );
  return { monitors: shards.flat().map(monitorFromItem), queries };
}

// ---- state ----

/** One group's state as stored. */
export interface StoredGroupState extends GroupState {
  /** The group's value; null for a monitor without a group_by. */
  group: string | null;
  /** The event of the last transition while it is not yet recorded (JSON of a NewEvent). */
  pendingEvent: string | null;
}

const statePartition = (workspaceId: number, monitorId: number) => `W#${workspaceId}#MONS#${monitorId}`;

/** The sort key of a group's state: `ALL` for the whole monitor, else the value (or its hash). */
export function stateSortKey(group: string | null): string {
  if (group === null) return 'ALL';
  if (group.length <= MAX_KEYED_VALUE_LENGTH) return `G#${group}`;
  return `H#${createHash('sha256').update(group).digest('hex')}`;
}

function stateFromItem(item: Item): StoredGroupState {
  return {
    status: item.status === 'triggered' ? 'triggered' : 'ok',
    seq: Number(item.seq ?? 0),
    lastTriggeredAt: item.lastTriggeredAt == null ? null : Number(item.lastTriggeredAt),
    group: (item.group as string | null | undefined) ?? null,
    pendingEvent: (item.pendingEvent as string | null | undefined) ?? null,
  };
}

async function queryStateItems(workspaceId: number, monitorId: number): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': statePartition(workspaceId, monitorId) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Every stored group state of a monitor, by sort key (one Query while it holds under 1 MB). */
export async function readStates(
  workspaceId: number,
  monitorId: number,
): Promise<Map<string, StoredGroupState>> {
  return (await readStatesAndSummary(workspaceId, monitorId)).states;
}

/**
 * The group states and the evaluations' summary (`EVAL`, in the same partition: the evaluator's one
 * Query reads both).
 */
export async function readStatesAndSummary(
  workspaceId: number,
  monitorId: number,
): Promise<{ states: Map<string, StoredGroupState>; summary: EvaluationSummary }> {
  const items = await queryStateItems(workspaceId, monitorId);
  const summaryItem = items.find((item) => item.SK === SUMMARY_SORT_KEY);
  return {
    states: new Map(
      items.filter((item) => item !== summaryItem).map((item) => [String(item.SK), stateFromItem(item)]),
    ),
    summary: {
      recent: (summaryItem?.recent as EvaluationPoint[] | undefined) ?? [],
      transitions: (summaryItem?.transitions as TransitionEntry[] | undefined) ?? [],
    },
  };
}

// ---- the evaluations' summary (what the dashboard draws) ----

/** Beside the group states; a group's sort key is `ALL`, `G#...` or `H#...`, never this. */
const SUMMARY_SORT_KEY = 'EVAL';

/** One evaluation: the monitor's value then (with a group_by, its group nearest to crossing). */
export interface EvaluationPoint {
  at: number;
  value: number | null;
  group: string | null;
}

/** One transition a group made. */
export interface TransitionEntry {
  transition: Transition;
  group: string | null;
  value: number | null;
  at: number;
}

/** The newest evaluations and transitions of a monitor, oldest first (bounded by the evaluator). */
export interface EvaluationSummary {
  recent: EvaluationPoint[];
  transitions: TransitionEntry[];
}

/**
 * Replaces the summary (one write per evaluation). Evaluations that overlap may each write theirs:
 * the last one wins, so one point can be missing. It is a picture; the events are the record.
 */
export async function putEvaluationSummary(
  workspaceId: number,
  monitorId: number,
  summary: EvaluationSummary,
): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { PK: statePartition(workspaceId, monitorId), SK: SUMMARY_SORT_KEY, ...summary },
    }),
  );
}

export interface StateTransition {
  group: string | null;
  transition: Transition;
  /** The seq the decision was made on: the write's condition. */
  fromSeq: number;
  now: number;
  cooldownMinutes: number;
  /** The event it reports, as JSON (kept on the item until recorded). */
  event: string;
  /** The value that decided it. */
  value: number | null;
}

/**
 * Writes a transition if the state is still the one it was decided on (`seq`); false when another
 * evaluation changed it first, which then owns the transition and its event.
 */
export async function writeTransition(
  workspaceId: number,
  monitorId: number,
  change: StateTransition,
): Promise<boolean> {
  const triggered = change.transition === 'triggered';
  const values: Record<string, unknown> = {
    ':from': change.fromSeq,
    ':to': change.fromSeq + 1,
    ':status': triggered ? 'triggered' : 'ok',
    ':group': change.group,
    ':event': change.event,
    ':value': change.value,
    ':now': change.now,
  };
  const sets = [
    '#status = :status',
    'seq = :to',
    '#group = :group',
    'pendingEvent = :event',
    'lastValue = :value',
    'updatedAt = :now',
  ];
  if (triggered) {
    sets.push('lastTriggeredAt = :now');
  } else {
    // Once the cool-down is over an ok state says nothing an absent one does not: let it expire.
    const afterCooldown = change.now + change.cooldownMinutes * 60_000 + 86_400_000;
    sets.push(`${TTL_ATTRIBUTE} = :expires`);
    values[':expires'] = Math.ceil(afterCooldown / 1000);
  }
  const written = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: { PK: statePartition(workspaceId, monitorId), SK: stateSortKey(change.group) },
        UpdateExpression: `SET ${sets.join(', ')}${triggered ? ` REMOVE ${TTL_ATTRIBUTE}` : ''}`,
        ConditionExpression:
          change.fromSeq === 0 ? 'attribute_not_exists(seq) OR seq = :from' : 'seq = :from',
        ExpressionAttributeNames: { '#status': 'status', '#group': 'group' },
        ExpressionAttributeValues: values,
      }),
    ),
  );
  return written !== undefined;
}

/** The transition's event is recorded: forget it (unless a later transition replaced it meanwhile). */
export async function clearPendingEvent(
  workspaceId: number,
  monitorId: number,
  group: string | null,
  seq: number,
): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: { PK: statePartition(workspaceId, monitorId), SK: stateSortKey(group) },
        UpdateExpression: 'REMOVE pendingEvent',
        ConditionExpression: 'seq = :seq',
        ExpressionAttributeValues: { ':seq': seq },
      }),
    ),
  );
}

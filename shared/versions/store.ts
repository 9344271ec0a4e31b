import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, queryIndexPartition, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { entityKeys, HEAD_SK, type TableKey, VERSION_PREFIX, versionSk } from './keys.ts';
import type { Head, LabelEntryBase, VersionKind } from './kind.ts';

/**
 * Table access of a versioned entity kind; the key design is in keys.ts. Every read is strongly
 * consistent: a client that publishes and then reads must see its version. Writes are single-item and
 * conditional (the embedded DynamoDB has no transactions); the order in which publish.ts and labels.ts
 * call them is what keeps a half-done change invisible.
 */

type Item = Record<string, unknown>;

export interface HeadAndLatest<H, V> {
  head?: H;
  latest?: V;
}

export interface ItemsWanted {
  heads?: string[];
  versions?: { name: string; number: number }[];
  /** The copies of the versions these labels were last moved to (see keys.ts labelCopy). */
  labelCopies?: { name: string; label: string }[];
}

/** What getItems found, by what was asked. */
export interface FoundItems<H, V> {
  head(name: string): H | undefined;
  version(name: string, number: number): V | undefined;
  labelCopy(name: string, label: string): V | undefined;
}

export interface LabelPointer {
  name: string;
  label: string;
}

export interface Pointers {
  entity?: { id: number; name: string };
  labels: { id: number; name: string; label: string }[];
}

export interface LabelMove {
  name: string;
  /** The label must still be this one (a deleted and re-created label has a new id). */
  id: number;
  /** When set, the label must still point at this version (compare-and-set of a publish). */
  fromVersion?: number;
  versionId: number;
  version_number: number;
}

export interface HeadChange<L, X> {
  /** Moves `updated_at`; left out by changes a client does not see (the external-ids flag). */
  updatedAt?: number;
  /** The kind's own fields to set (undefined ones are left alone). */
  set?: Partial<X>;
  markExternalIds?: boolean;
  /** Labels to add; each must still be absent. */
  create?: Record<string, L>;
  move?: LabelMove[];
  /** A label to remove; it must still have this id. */
  remove?: { name: string; id: number };
}

// Ids never change name (there is no rename), so a container remembers the mapping; bounded by clearing.
const namesById = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 10_000;

/*
 * The SDK's marshaller assigns map keys and checks a map's `constructor`: a label called `__proto__`
 * would set a prototype and one called `constructor` makes it refuse the map. Such names (and their
 * escaped forms, so that every name keeps its own key) are stored with one more leading backslash.
 */
const UNSAFE_KEY = /^\\*(?:__proto__|constructor)$/;
const ESCAPED_KEY = /^\\+(?:__proto__|constructor)$/;
const storedLabelKey = (label: string) => (UNSAFE_KEY.test(label) ? `\\${label}` : label);

/** The labels map with the names as given, without a prototype: a lookup never finds an inherited member. */
function labelsFromItem<L>(stored: Record<string, L> = {}): Record<string, L> {
  const labels: Record<string, L> = Object.create(null);
  for (const [key, entry] of Object.entries(stored))
    labels[ESCAPED_KEY.test(key) ? key.slice(1) : key] = entry;
  return labels;
}

/** The store of one kind: every read and write of its items. */
export function versionStore<V, L extends LabelEntryBase, X>(kind: VersionKind<V, L, X>) {
  type H = Head<L, X>;
  const keys = entityKeys(kind);

  const toHead = (item: Item): H =>
    ({
      ...kind.headFields(item),
      id: item.id as number,
      name: item.name as string,
      created_at: item.created_at as number,
      updated_at: item.updated_at as number,
      labels: labelsFromItem(item.labels as Record<string, L> | undefined),
      has_external_ids: item.has_external_ids === true,
    }) as H;
  const toVersion = (item: Item): V => kind.decodeVersion(item);

  /** The first `limit` items of an entity's partition from the top (highest sort key) down. */
  async function queryFromTop(workspaceId: number, name: string, skCondition: string, limit: number) {
    const { Items = [] } = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: `PK = :pk AND ${skCondition}`,
        ExpressionAttributeValues: { ':pk': keys.pk(workspaceId, name), ':versions': VERSION_PREFIX },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return Items;
  }

  const getItem = async (key: TableKey) =>
    (await dynamo.send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;

  return {
    kind,
    keys,

    /** The head and the latest version in one Query (the head sorts above every version). */
    async readHeadAndLatest(workspaceId: number, name: string): Promise<HeadAndLatest<H, V>> {
      const [first, second] = await queryFromTop(workspaceId, name, 'SK >= :versions', 2);
      if (first?.SK === HEAD_SK) return { head: toHead(first), latest: second && toVersion(second) };
      return { latest: first && toVersion(first) };
    },

    /** The latest version alone (lists, where the head is already known). */
    async getLatestVersion(workspaceId: number, name: string): Promise<V | undefined> {
      const [latest] = await queryFromTop(workspaceId, name, 'begins_with(SK, :versions)', 1);
      return latest && toVersion(latest);
    },

    /** Versions `lowest..highest` (numbers are dense), newest first: one Query, paged through. */
    async versionsBetween(workspaceId: number, name: string, lowest: number, highest: number): Promise<V[]> {
      const versions: V[] = [];
      let startKey: Item | undefined;
      do {
        const page = await dynamo.send(
          new QueryCommand({
            TableName: table(),
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lowest AND :highest',
            ExpressionAttributeValues: {
              ':pk': keys.pk(workspaceId, name),
              ':lowest': versionSk(lowest),
              ':highest': versionSk(highest),
            },
            ScanIndexForward: false,
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        versions.push(...(page.Items ?? []).map(toVersion));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return versions;
    },

    async getHead(workspaceId: number, name: string): Promise<H | undefined> {
      const item = await getItem(keys.head(workspaceId, name));
      return item && toHead(item);
    },

    async getVersion(workspaceId: number, name: string, number: number): Promise<V | undefined> {
      const item = await getItem(keys.version(workspaceId, name, number));
      return item && toVersion(item);
    },

    /** Heads, versions and label copies of any entities in one BatchGetItem (per 100 keys). */
    async getItems(workspaceId: number, wanted: ItemsWanted): Promise<FoundItems<H, V>> {
      const id = (key: TableKey) => `${key.PK}\u0000${key.SK}`;
      // BatchGetItem refuses a key asked twice.
      const asked = new Map(
        [
          ...(wanted.heads ?? []).map((name) => keys.head(workspaceId, name)),
          ...(wanted.versions ?? []).map(({ name, number }) => keys.version(workspaceId, name, number)),
          ...(wanted.labelCopies ?? []).map(({ name, label }) => keys.labelCopy(workspaceId, name, label)),
        ].map((key) => [id(key), key]),
      );
      const items = asked.size ? await batchGetItems([...asked.values()], { consistent: true }) : [];
      const found = new Map(items.map((item) => [id(item as TableKey), item]));
      const at = <T>(key: TableKey, as: (item: Item) => T) => {
        const item = found.get(id(key));
        return item && as(item);
      };
      return {
        head: (name) => at(keys.head(workspaceId, name), toHead),
        version: (name, number) => at(keys.version(workspaceId, name, number), toVersion),
        labelCopy: (name, label) => at(keys.labelCopy(workspaceId, name, label), toVersion),
      };
    },

    /** The name of an entity id, or undefined when the workspace has no such id. */
    async getName(workspaceId: number, entityId: number): Promise<string | undefined> {
      const memoKey = `${kind.tag}#${workspaceId}#${entityId}`;
      const remembered = namesById.get(memoKey);
      if (remembered !== undefined) return remembered;
      const item = await getItem(keys.entityId(workspaceId, entityId));
      if (!item) return undefined;
      if (namesById.size >= MAX_REMEMBERED_NAMES) namesById.clear();
      namesById.set(memoKey, item.name as string);
      return item.name as string;
    },

    async getLabelPointer(workspaceId: number, labelId: number): Promise<LabelPointer | undefined> {
      const item = await getItem(keys.labelId(workspaceId, labelId));
      return item && { name: item[kind.nameField] as string, label: item.label as string };
    },

    /** Every head of the kind in a workspace (lists filter and sort them in memory). */
    async listHeads(workspaceId: number): Promise<H[]> {
      return (await queryIndexPartition('GSI1', keys.indexPk(workspaceId))).map(toHead);
    },

    /** Claims the version's number; false when another publish took that number first. */
    async putVersion(workspaceId: number, version: V): Promise<boolean> {
      const { name, number } = kind.placeOf(version);
      return (
        (await unlessConditionFails(
          dynamo.send(
            new PutCommand({
              TableName: table(),
              Item: { ...keys.version(workspaceId, name, number), ...kind.encodeVersion(version) },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          ),
        )) !== undefined
      );
    },

    /**
     * Writes the copy of `version` that reads by `label` use: before the head moves the label, so a
     * reader that sees the move finds the copy. `monotonic` (a publish, whose labels only move forward)
     * keeps a copy of a higher version in place: racing publishes leave the copy of the highest
     * version, where their label ends too. A copy left out of step costs readers one more read, never a
     * wrong answer.
     */
    async putLabelCopy(
      workspaceId: number,
      label: string,
      version: V,
      { monotonic }: { monotonic: boolean },
    ): Promise<void> {
      const place = kind.placeOf(version);
      await unlessConditionFails(
        dynamo.send(
          new PutCommand({
            TableName: table(),
            Item: {
              ...keys.labelCopy(workspaceId, place.name, label),
              [kind.versionIdField]: place.id,
              version_number: place.number,
              ...kind.encodeVersion(version),
            },
            ...(monotonic && {
              ConditionExpression: 'attribute_not_exists(PK) OR version_number <= :number',
              ExpressionAttributeValues: { ':number': place.number },
            }),
          }),
        ),
      );
    },

    /** Deletes a deleted label's copy, unless a publish that re-created the label has replaced it. */
    async deleteLabelCopy(
      workspaceId: number,
      name: string,
      label: string,
      versionId: number,
    ): Promise<void> {
      await unlessConditionFails(
        dynamo.send(
          new DeleteCommand({
            TableName: table(),
            Key: keys.labelCopy(workspaceId, name, label),
            ConditionExpression: '#vid = :version',
            ExpressionAttributeNames: { '#vid': kind.versionIdField },
            ExpressionAttributeValues: { ':version': versionId },
          }),
        ),
      );
    },

    /** Id pointers in one BatchWriteItem. Ids are fresh, so they need no condition. */
    async putPointers(workspaceId: number, pointers: Pointers): Promise<void> {
      const items: Item[] = pointers.labels.map(({ id, name, label }) => ({
        ...keys.labelId(workspaceId, id),
        id,
        [kind.nameField]: name,
        label,
      }));
      if (pointers.entity) {
        items.push({ ...keys.entityId(workspaceId, pointers.entity.id), name: pointers.entity.name });
      }
      await batchWriteItems(items.map((Item) => ({ PutRequest: { Item } })));
    },

    async deleteLabelPointer(workspaceId: number, labelId: number): Promise<void> {
      await dynamo.send(new DeleteCommand({ TableName: table(), Key: keys.labelId(workspaceId, labelId) }));
    },

    /** Creates the head; false when it already exists (another publish created the entity first). */
    async createHead(workspaceId: number, head: H): Promise<boolean> {
      return (
        (await unlessConditionFails(
          dynamo.send(
            new PutCommand({
              TableName: table(),
              Item: {
                ...keys.head(workspaceId, head.name),
                GSI1PK: keys.indexPk(workspaceId),
                GSI1SK: keys.indexSk(head.created_at, head.id),
                ...head,
                labels: Object.fromEntries(
                  Object.entries(head.labels).map(([label, entry]) => [storedLabelKey(label), entry]),
                ),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          ),
        )) !== undefined
      );
    },

    /**
     * Applies a change to an existing head in one conditional UpdateItem. Answers the head as it was
     * before, or undefined when a condition failed (the caller re-reads and decides again).
     */
    async updateHead(workspaceId: number, name: string, change: HeadChange<L, X>): Promise<H | undefined> {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const sets: string[] = [];
      const removes: string[] = [];
      const conditions = ['attribute_exists(PK)'];
      const set = (attribute: string, value: unknown) => {
        const index = Object.keys(names).length;
        names[`#a${index}`] = attribute;
        values[`:a${index}`] = value;
        sets.push(`#a${index} = :a${index}`);
      };
      if (change.updatedAt !== undefined) {
        names['#updated'] = 'updated_at';
        values[':updated'] = change.updatedAt;
        sets.push('#updated = :updated');
      }
      for (const [attribute, value] of Object.entries(change.set ?? {})) {
        if (value !== undefined) set(attribute, value);
      }
      if (change.markExternalIds) set('has_external_ids', true);
      const labelPath = (label: string, index: string) => {
        names['#labels'] = 'labels';
        names[`#${index}`] = storedLabelKey(label);
        return `#labels.#${index}`;
      };
      Object.entries(change.create ?? {}).forEach(([label, entry], i) => {
        const path = labelPath(label, `c${i}`);
        values[`:c${i}`] = entry;
        sets.push(`${path} = :c${i}`);
        conditions.push(`attribute_not_exists(${path})`);
      });
      (change.move ?? []).forEach((move, i) => {
        const path = labelPath(move.name, `m${i}`);
        Object.assign(names, { '#vid': kind.versionIdField, '#vn': 'version_number', '#lid': 'id' });
        Object.assign(values, {
          [`:m${i}id`]: move.id,
          [`:m${i}vid`]: move.versionId,
          [`:m${i}vn`]: move.version_number,
        });
        sets.push(`${path}.#vid = :m${i}vid`, `${path}.#vn = :m${i}vn`);
        if (change.updatedAt !== undefined) sets.push(`${path}.#updated = :updated`);
        conditions.push(`${path}.#lid = :m${i}id`);
        if (move.fromVersion !== undefined) {
          values[`:m${i}from`] = move.fromVersion;
          conditions.push(`${path}.#vn = :m${i}from`);
        }
      });
      if (change.remove) {
        const path = labelPath(change.remove.name, 'r');
        names['#lid'] = 'id';
        values[':rid'] = change.remove.id;
        removes.push(path);
        conditions.push(`${path}.#lid = :rid`);
      }
      const updated = await unlessConditionFails(
        dynamo.send(
          new UpdateCommand({
            TableName: table(),
            Key: keys.head(workspaceId, name),
            UpdateExpression: [
              sets.length ? `SET ${sets.join(', ')}` : '',
              removes.length ? `REMOVE ${removes.join(', ')}` : '',
            ].join(' '),
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: names,
            ...(Object.keys(values).length && { ExpressionAttributeValues: values }),
            ReturnValues: 'ALL_OLD',
          }),
        ),
      );
      return updated?.Attributes && toHead(updated.Attributes);
    },
  };
}

export type VersionStore<V, L extends LabelEntryBase, X> = ReturnType<typeof versionStore<V, L, X>>;

/** Byte size of a version as stored (the item limit is 400 KB). */
export { storedJsonBytes } from '#shared/platform/json.ts';

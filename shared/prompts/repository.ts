import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, isConditionFailed, queryIndexPartition, table } from '#shared/platform/dynamo.ts';
import {
  HEAD_SK,
  headKey,
  labelCopyKey,
  labelIdKey,
  templateIdKey,
  templatePk,
  templatesIndexPk,
  templatesIndexSk,
  VERSION_PREFIX,
  versionKey,
} from './keys.ts';
import type { LabelEntry, TemplateHead, VersionRecord } from './records.ts';

/**
 * Table access of the prompt registry; the key design is in keys.ts and docs/prompts.md. Every read of
 * a template is strongly consistent: a client that publishes and then reads must see its version.
 * Writes are single-item and conditional (the embedded DynamoDB has no transactions); the order in which
 * publish.ts and labels.ts call them is what keeps a half-done change invisible.
 */

type Item = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------
// Reads

export interface HeadAndLatest {
  head?: TemplateHead;
  latest?: VersionRecord;
}

/** The head and the latest version of a template in one Query (the head sorts above every version). */
export async function readHeadAndLatest(workspaceId: number, name: string): Promise<HeadAndLatest> {
  const [first, second] = await queryFromTop(workspaceId, name, 'SK >= :versions', 2);
  if (first?.SK === HEAD_SK) return { head: toHead(first), latest: second && toVersion(second) };
  return { latest: first && toVersion(first) };
}

/** The latest version alone (lists, where the head is already known). */
export async function getLatestVersion(
  workspaceId: number,
  name: string,
): Promise<VersionRecord | undefined> {
  const [latest] = await queryFromTop(workspaceId, name, 'begins_with(SK, :versions)', 1);
  return latest && toVersion(latest);
}

/** The first `limit` items of a template's partition from the top (highest sort key) down. */
async function queryFromTop(workspaceId: number, name: string, skCondition: string, limit: number) {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: `PK = :pk AND ${skCondition}`,
      ExpressionAttributeValues: { ':pk': templatePk(workspaceId, name), ':versions': VERSION_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return Items;
}

export async function getHead(workspaceId: number, name: string): Promise<TemplateHead | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: headKey(workspaceId, name), ConsistentRead: true }),
  );
  return Item && toHead(Item);
}

export async function getVersion(
  workspaceId: number,
  name: string,
  number: number,
): Promise<VersionRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: versionKey(workspaceId, name, number), ConsistentRead: true }),
  );
  return Item && toVersion(Item);
}

export interface TemplateItemsWanted {
  heads?: string[];
  versions?: { name: string; number: number }[];
  /** The copies of the versions these labels were last moved to (see labelCopyKey). */
  labelCopies?: { name: string; label: string }[];
}

/** What getTemplateItems found, by what was asked. */
export interface TemplateItems {
  head(name: string): TemplateHead | undefined;
  version(name: string, number: number): VersionRecord | undefined;
  labelCopy(name: string, label: string): VersionRecord | undefined;
}

/** Heads, versions and label copies of any templates in one BatchGetItem (per 100 keys). */
export async function getTemplateItems(
  workspaceId: number,
  wanted: TemplateItemsWanted,
): Promise<TemplateItems> {
  const id = (key: { PK: string; SK: string }) => `${key.PK}\u0000${key.SK}`;
  // BatchGetItem refuses a key asked twice.
  const keys = new Map(
    [
      ...(wanted.heads ?? []).map((name) => headKey(workspaceId, name)),
      ...(wanted.versions ?? []).map(({ name, number }) => versionKey(workspaceId, name, number)),
      ...(wanted.labelCopies ?? []).map(({ name, label }) => labelCopyKey(workspaceId, name, label)),
    ].map((key) => [id(key), key]),
  );
  const items = keys.size ? await batchGetItems([...keys.values()], { consistent: true }) : [];
  const found = new Map(items.map((item) => [id(item as { PK: string; SK: string }), item]));
  const at = <T>(key: { PK: string; SK: string }, as: (item: Item) => T) => {
    const item = found.get(id(key));
    return item && as(item);
  };
  return {
    head: (name) => at(headKey(workspaceId, name), toHead),
    version: (name, number) => at(versionKey(workspaceId, name, number), toVersion),
    labelCopy: (name, label) => at(labelCopyKey(workspaceId, name, label), toVersion),
  };
}

// Ids never change name (there is no rename), so a container remembers the mapping; bounded by clearing.
const namesById = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 10_000;

/** The name of a template id, or undefined when the workspace has no such id. */
export async function getTemplateName(workspaceId: number, templateId: number): Promise<string | undefined> {
  const memoKey = `${workspaceId}#${templateId}`;
  const remembered = namesById.get(memoKey);
  if (remembered !== undefined) return remembered;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: templateIdKey(workspaceId, templateId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  if (namesById.size >= MAX_REMEMBERED_NAMES) namesById.clear();
  namesById.set(memoKey, Item.name as string);
  return Item.name as string;
}

export interface LabelPointer {
  prompt_name: string;
  label: string;
}

export async function getLabelPointer(
  workspaceId: number,
  labelId: number,
): Promise<LabelPointer | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: labelIdKey(workspaceId, labelId), ConsistentRead: true }),
  );
  return Item && { prompt_name: Item.prompt_name as string, label: Item.label as string };
}

/** Every template head of a workspace (the list filters and sorts them in memory). */
export async function listHeads(workspaceId: number): Promise<TemplateHead[]> {
  return (await queryIndexPartition('GSI1', templatesIndexPk(workspaceId))).map(toHead);
}

// ---------------------------------------------------------------------------------------------------------
// Writes

/** Claims version `record.number`; false when another publish took that number first. */
export async function putVersion(workspaceId: number, record: VersionRecord): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: { ...versionKey(workspaceId, record.prompt_name, record.number), doc: JSON.stringify(record) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Byte size of a version as stored (the item limit is 400 KB). */
export const storedVersionBytes = (record: VersionRecord) =>
  Buffer.byteLength(JSON.stringify(record), 'utf8');

/** Byte size of a head as JSON, close to what DynamoDB counts of the item. */
export const storedHeadBytes = (head: Pick<TemplateHead, 'tags' | 'labels'>) =>
  Buffer.byteLength(JSON.stringify({ tags: head.tags, labels: head.labels }), 'utf8');

/**
 * Writes the copy of `version` that reads by `label` use (see labelCopyKey): before the head moves the
 * label, so a reader that sees the move finds the copy. `monotonic` (a publish, whose labels only move
 * forward) keeps a copy of a higher version in place: racing publishes leave the copy of the highest
 * version, where their label ends too. A copy left out of step costs readers one more read, never a
 * wrong answer.
 */
export async function putLabelCopy(
  workspaceId: number,
  label: string,
  version: VersionRecord,
  { monotonic }: { monotonic: boolean },
): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...labelCopyKey(workspaceId, version.prompt_name, label),
          prompt_version_id: version.id,
          version_number: version.number,
          doc: JSON.stringify(version),
        },
        ...(monotonic && {
          ConditionExpression: 'attribute_not_exists(PK) OR version_number <= :number',
          ExpressionAttributeValues: { ':number': version.number },
        }),
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

/** Deletes a deleted label's copy, unless a publish that re-created the label has replaced it. */
export async function deleteLabelCopy(
  workspaceId: number,
  name: string,
  label: string,
  versionId: number,
): Promise<void> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: labelCopyKey(workspaceId, name, label),
        ConditionExpression: 'prompt_version_id = :version',
        ExpressionAttributeValues: { ':version': versionId },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

export interface Pointers {
  template?: { id: number; name: string };
  labels: { id: number; prompt_name: string; label: string }[];
}

/** Id pointers in one BatchWriteItem. Ids are fresh, so they need no condition. */
export async function putPointers(workspaceId: number, pointers: Pointers): Promise<void> {
  const items: Item[] = pointers.labels.map((label) => ({ ...labelIdKey(workspaceId, label.id), ...label }));
  if (pointers.template) {
    items.push({ ...templateIdKey(workspaceId, pointers.template.id), name: pointers.template.name });
  }
  await batchWriteItems(items.map((Item) => ({ PutRequest: { Item } })));
}

export async function deleteLabelPointer(workspaceId: number, labelId: number): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: table(), Key: labelIdKey(workspaceId, labelId) }));
}

/** Creates the head; false when it already exists (another publish created the template first). */
export async function createHead(workspaceId: number, head: TemplateHead): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...headKey(workspaceId, head.name),
          GSI1PK: templatesIndexPk(workspaceId),
          GSI1SK: templatesIndexSk(head.created_at, head.id),
          ...head,
          labels: Object.fromEntries(
            Object.entries(head.labels).map(([label, entry]) => [storedLabelKey(label), entry]),
          ),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export interface LabelMove {
  name: string;
  /** The label must still be this one (a deleted and re-created label has a new id). */
  id: number;
  /** When set, the label must still point at this version (compare-and-set of a publish). */
  fromVersion?: number;
  prompt_version_id: number;
  version_number: number;
}

export interface HeadChange {
  /** Moves `updated_at`; left out by changes a client does not see (the external-ids flag). */
  updatedAt?: number;
  tags?: string[];
  folderId?: number | null;
  markExternalIds?: boolean;
  /** Labels to add; each must still be absent. */
  create?: Record<string, LabelEntry>;
  move?: LabelMove[];
  /** A label to remove; it must still have this id. */
  remove?: { name: string; id: number };
}

/**
 * Applies a change to an existing head in one conditional UpdateItem. Answers the head as it was
 * before, or undefined when a condition failed (the caller re-reads and decides again).
 */
export async function updateHead(
  workspaceId: number,
  name: string,
  change: HeadChange,
): Promise<TemplateHead | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  if (change.updatedAt !== undefined) {
    names['#updated'] = 'updated_at';
    values[':updated'] = change.updatedAt;
    sets.push('#updated = :updated');
  }
  const removes: string[] = [];
  const conditions = ['attribute_exists(PK)'];
  if (change.tags) {
    names['#tags'] = 'tags';
    values[':tags'] = change.tags;
    sets.push('#tags = :tags');
  }
  if (change.folderId !== undefined) {
    names['#folder'] = 'folder_id';
    values[':folder'] = change.folderId;
    sets.push('#folder = :folder');
  }
  if (change.markExternalIds) {
    names['#xids'] = 'has_external_ids';
    values[':xids'] = true;
    sets.push('#xids = :xids');
  }
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
    Object.assign(names, { '#vid': 'prompt_version_id', '#vn': 'version_number', '#lid': 'id' });
    Object.assign(values, {
      [`:m${i}id`]: move.id,
      [`:m${i}vid`]: move.prompt_version_id,
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
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: headKey(workspaceId, name),
        UpdateExpression: [
          sets.length ? `SET ${sets.join(', ')}` : '',
          removes.length ? `REMOVE ${removes.join(', ')}` : '',
        ].join(' '),
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes && toHead(Attributes);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Item mapping and batch helpers

function toHead(item: Item): TemplateHead {
  return {
    id: item.id as number,
    name: item.name as string,
    tags: (item.tags as string[] | undefined) ?? [],
    folder_id: (item.folder_id as number | null | undefined) ?? null,
    created_at: item.created_at as number,
    updated_at: item.updated_at as number,
    labels: labelsFromItem(item.labels as Record<string, LabelEntry> | undefined),
    has_external_ids: item.has_external_ids === true,
  };
}

/*
 * The SDK's marshaller assigns map keys and checks a map's `constructor`: a label called `__proto__`
 * would set a prototype and one called `constructor` makes it refuse the map. Such names (and their
 * escaped forms, so that every name keeps its own key) are stored with one more leading backslash.
 */
const UNSAFE_KEY = /^\\*(?:__proto__|constructor)$/;
const ESCAPED_KEY = /^\\+(?:__proto__|constructor)$/;
const storedLabelKey = (label: string) => (UNSAFE_KEY.test(label) ? `\\${label}` : label);

/** The labels map with the names as given, without a prototype: a lookup never finds an inherited member. */
function labelsFromItem(stored: Record<string, LabelEntry> = {}): Record<string, LabelEntry> {
  const labels: Record<string, LabelEntry> = Object.create(null);
  for (const [key, entry] of Object.entries(stored))
    labels[ESCAPED_KEY.test(key) ? key.slice(1) : key] = entry;
  return labels;
}

function toVersion(item: Item): VersionRecord {
  return JSON.parse(item.doc as string) as VersionRecord;
}

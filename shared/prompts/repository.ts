import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, isConditionFailed, queryIndexPartition, table } from '#shared/platform/dynamo.ts';
import {
  HEAD_SK,
  headKey,
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

/** The head and one version of a template in one BatchGetItem. */
export async function getHeadAndVersion(
  workspaceId: number,
  name: string,
  number: number,
): Promise<{ head?: TemplateHead; version?: VersionRecord }> {
  const items = await batchGetItems([headKey(workspaceId, name), versionKey(workspaceId, name, number)], {
    consistent: true,
  });
  const head = items.find((item) => item.SK === HEAD_SK);
  const version = items.find((item) => item.SK !== HEAD_SK);
  return { head: head && toHead(head), version: version && toVersion(version) };
}

/** Versions of several templates in one BatchGetItem, by `${name}@${number}`. */
export async function getVersions(
  workspaceId: number,
  wanted: { name: string; number: number }[],
): Promise<Map<string, VersionRecord>> {
  const items = await batchGetItems(
    wanted.map(({ name, number }) => versionKey(workspaceId, name, number)),
    { consistent: true },
  );
  const found = new Map<string, VersionRecord>();
  for (const item of items) {
    const version = toVersion(item);
    found.set(`${version.prompt_name}@${version.number}`, version);
  }
  return found;
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
        Item: {
          ...versionKey(workspaceId, record.prompt_name, record.number),
          doc: JSON.stringify(record),
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

/** Byte size of a version as stored (the item limit is 400 KB). */
export const storedVersionBytes = (record: VersionRecord) =>
  Buffer.byteLength(JSON.stringify(record), 'utf8');

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
  updatedAt: number;
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
  const names: Record<string, string> = { '#updated': 'updated_at' };
  const values: Record<string, unknown> = { ':updated': change.updatedAt };
  const sets = ['#updated = :updated'];
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
    names[`#${index}`] = label;
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
    sets.push(`${path}.#vid = :m${i}vid`, `${path}.#vn = :m${i}vn`, `${path}.#updated = :updated`);
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
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
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
    labels: (item.labels as Record<string, LabelEntry> | undefined) ?? {},
    has_external_ids: item.has_external_ids === true,
  };
}

function toVersion(item: Item): VersionRecord {
  return JSON.parse(item.doc as string) as VersionRecord;
}

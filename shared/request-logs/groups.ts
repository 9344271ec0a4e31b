import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';

/**
 * Groups: a workspace-scoped id that request logs can be attached to (PromptLayer's `group.create`,
 * `track.group`, `group_id` on tracked requests), so the logs of one conversation or job can be found
 * together (filter field `group_id`). A group holds nothing but its id and creation time; the link lives
 * on each log (`group_id`).
 *
 * Item: `W#<ws>#GRP#<id>` / `GRP`. Ids come from the `group` counter (unique across workspaces); the key
 * carries the workspace, so an id of another workspace is simply not found.
 */
export interface GroupRecord {
  id: number;
  workspace_id: number;
  created_at: number;
}

const groupKey = (workspaceId: number, id: number) => ({ PK: `W#${workspaceId}#GRP#${id}`, SK: 'GRP' });

/** One PutItem (plus an id block now and then). */
export async function createGroup(workspaceId: number): Promise<GroupRecord> {
  const group: GroupRecord = { id: await nextId('group'), workspace_id: workspaceId, created_at: Date.now() };
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { ...groupKey(workspaceId, group.id), ...group },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return group;
}

/** Throws 404 when the workspace has no group with that id (one GetItem). */
export async function requireGroup(workspaceId: number, id: number): Promise<void> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: groupKey(workspaceId, id), ProjectionExpression: 'PK' }),
  );
  if (!Item) throw notFound(`Group ${id} not found`);
}

import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { requestLogKey, timeSortKey } from '#shared/request-logs/repository.ts';

/**
 * The replays of a log, found without an index: one small link item per replay in the original's own
 * partition, `W#<ws>#RL#<original>` / `RPL#<start>#<replay id>` (every GSI of the table is taken by the
 * logs themselves). Written just before the replay's log: a crash between the two leaves a link to a log
 * that does not exist, which the list skips; never a replay the list cannot find. The original's item
 * itself is never written.
 */
const LINK_PREFIX = 'RPL#';

export async function putReplayLink(replay: RequestLogRecord): Promise<void> {
  const originalId = replay.replay_of;
  if (originalId == null) throw new Error('A replay link needs the log the replay is of');
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        PK: requestLogKey(replay.workspace_id, originalId).PK,
        SK: `${LINK_PREFIX}${timeSortKey(replay.request_start_time, replay.id)}`,
        replayId: replay.id,
      },
    }),
  );
}

/** The ids of a log's replays, newest first (keys only: about 60 bytes a link, so one page holds thousands). */
export async function replayIdsOf(workspaceId: number, originalId: number): Promise<number[]> {
  const ids: number[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': requestLogKey(workspaceId, originalId).PK,
          ':prefix': LINK_PREFIX,
        },
        ProjectionExpression: 'replayId',
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) ids.push(Number(item.replayId));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return ids;
}

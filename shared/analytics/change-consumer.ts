import type { ItemChange, ItemImage } from '#shared/platform/change-feed.ts';
import { logger } from '#shared/platform/logger.ts';
import { readHead } from '#shared/request-logs/repository.ts';
import { applyLogChanges, type LogChange } from './rollup-store.ts';

/**
 * The rollups' consumer of the change feed: each request-log change subtracts the facts of the image it
 * replaced and adds those of the new one (an insert only adds, a removal only subtracts), so later
 * score and metadata updates are reflected. The feed's filter delivers request-log items only.
 */
export async function applyRequestLogChanges(
  changes: readonly ItemChange[],
  shard: string,
): Promise<{ failedSequences: string[]; writes: number }> {
  const logChanges: LogChange[] = [];
  for (const change of changes) {
    const workspaceId = workspaceOf(change.keys);
    if (workspaceId === undefined) continue;
    logChanges.push({
      shard,
      sequence: change.sequence,
      workspaceId,
      before: await imageHead(change.oldImage, change),
      after: await imageHead(change.newImage, change),
    });
  }
  return applyLogChanges(logChanges);
}

/** `W#<ws>#RL#<id>` / `RL`: the workspace of a request-log key, undefined for any other item. */
function workspaceOf(keys: ItemImage): number | undefined {
  const match = keys.SK === 'RL' && typeof keys.PK === 'string' ? /^W#(\d+)#RL#\d+$/.exec(keys.PK) : null;
  return match ? Number(match[1]) : undefined;
}

async function imageHead(image: ItemImage | undefined, change: ItemChange) {
  if (!image) return undefined;
  const head = await readHead(image);
  if (!head) {
    logger.warn('A request-log image has neither doc nor head and its object is gone: not rolled up', {
      sequence: change.sequence,
    });
  }
  return head;
}

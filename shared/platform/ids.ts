import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from './dynamo.ts';

/**
 * Integer ids without a hot item per request: a container reserves a block of ids with one atomic ADD
 * on the kind's counter item and hands them out from memory. Ids are unique and increasing per
 * container, not gap-free across containers (an unused block tail is skipped after a cold start).
 */
export type IdKind =
  | 'workspace'
  | 'user'
  | 'api_key'
  | 'request_log'
  | 'group'
  | 'prompt'
  | 'prompt_version'
  | 'prompt_label'
  | 'dataset_group'
  | 'dataset'
  | 'webhook'
  | 'monitor'
  | 'workflow'
  | 'workflow_version'
  | 'workflow_label'
  | 'workflow_execution'
  | 'report'
  | 'report_column'
  | 'tool'
  | 'tool_version'
  | 'tool_label'
  | 'folder'
  | 'skill_collection'
  | 'skill_collection_version'
  | 'skill_collection_label'
  | 'env_var';

export const ID_BLOCK_SIZE = 100;

interface Block {
  next: number;
  end: number;
}

const blocks = new Map<IdKind, Block>();
const refills = new Map<IdKind, Promise<void>>();

export const COUNTER_PREFIX = 'COUNTER#';
export const counterKey = (kind: IdKind) => ({ PK: `${COUNTER_PREFIX}${kind}`, SK: 'COUNTER' });

async function reserveBlock(kind: IdKind): Promise<void> {
  const result = await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: counterKey(kind),
      UpdateExpression: 'ADD #last :block',
      ExpressionAttributeNames: { '#last': 'last' },
      ExpressionAttributeValues: { ':block': ID_BLOCK_SIZE },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(result.Attributes?.last);
  if (!Number.isSafeInteger(last) || last < ID_BLOCK_SIZE)
    throw new Error(`Counter ${kind} answered ${last}`);
  blocks.set(kind, { next: last - ID_BLOCK_SIZE + 1, end: last });
}

/** Reserves a fresh block; concurrent callers of one container share a single refill per kind. */
function refill(kind: IdKind): Promise<void> {
  let pending = refills.get(kind);
  if (!pending) {
    pending = reserveBlock(kind).finally(() => refills.delete(kind));
    refills.set(kind, pending);
  }
  return pending;
}

const available = (kind: IdKind) => {
  const block = blocks.get(kind);
  return block ? block.end - block.next + 1 : 0;
};

export async function nextId(kind: IdKind): Promise<number> {
  for (;;) {
    const block = blocks.get(kind);
    if (block && block.next <= block.end) return block.next++;
    await refill(kind);
  }
}

/**
 * Makes sure the container holds `count` ids of each kind (at most a block), reserving the blocks that
 * are short all at once: an operation that needs several kinds pays one round trip on a cold start
 * instead of one per kind. A block that is short is replaced (its tail becomes a gap).
 */
export async function prefetchIds(needs: Partial<Record<IdKind, number>>): Promise<void> {
  await Promise.all(
    (Object.entries(needs) as [IdKind, number][])
      .filter(([kind, count]) => available(kind) < Math.min(count, ID_BLOCK_SIZE))
      .map(([kind]) => refill(kind)),
  );
}

/** Forgets reserved blocks (tests that reset the table). */
export function resetIdBlocks(): void {
  blocks.clear();
}

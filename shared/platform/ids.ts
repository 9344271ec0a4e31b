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
  | 'prompt'
  | 'prompt_version'
  | 'prompt_label'
  | 'dataset_group'
  | 'dataset';

export const ID_BLOCK_SIZE = 100;

interface Block {
  next: number;
  end: number;
}

const blocks = new Map<IdKind, Block>();
const refills = new Map<IdKind, Promise<void>>();

export const counterKey = (kind: IdKind) => ({ PK: `COUNTER#${kind}`, SK: 'COUNTER' });

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

export async function nextId(kind: IdKind): Promise<number> {
  for (;;) {
    const block = blocks.get(kind);
    if (block && block.next <= block.end) return block.next++;
    // Concurrent callers of one container share a single refill.
    let refill = refills.get(kind);
    if (!refill) {
      refill = reserveBlock(kind).finally(() => refills.delete(kind));
      refills.set(kind, refill);
    }
    await refill;
  }
}

/** Forgets reserved blocks (tests that reset the table). */
export function resetIdBlocks(): void {
  blocks.clear();
}

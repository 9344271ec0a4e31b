import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailed, table } from '#shared/platform/dynamo.ts';
import { conflict } from '#shared/platform/errors.ts';
import { headById, type SkillHead } from './collection.ts';

/**
 * Collection names, unique per workspace: one pointer item per name, `W#<ws>#SKN#<name>` -> the
 * collection's UUID, taken with a conditional put. A name is in use while its pointer's collection
 * has that name, or for CLAIM_GRACE_MS after the pointer was written (a create or rename still on its
 * way to the head). A pointer that is neither, left by a create or rename that stopped halfway, is
 * taken over (conditionally on the UUID it holds). Reads by name trust a pointer only when the head
 * it names carries that name.
 */
const GRACE_MS = 60_000;
const MAX_ATTEMPTS = 10;

const nameKey = (workspaceId: number, name: string) => ({ PK: `W#${workspaceId}#SKN#${name}`, SK: 'SKN' });

interface NamePointer {
  collection_id: string;
  claimed_at: number;
}

async function getPointer(workspaceId: number, name: string): Promise<NamePointer | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: nameKey(workspaceId, name), ConsistentRead: true }),
  );
  return Item as NamePointer | undefined;
}

export const nameTaken = (name: string) => conflict(`A skill collection named ${name} already exists`);

/** The live collection of that name, if any. */
export async function headByName(workspaceId: number, name: string): Promise<SkillHead | undefined> {
  const pointer = await getPointer(workspaceId, name);
  if (!pointer) return undefined;
  const head = await headById(workspaceId, pointer.collection_id);
  return head?.collection_name === name ? head : undefined;
}

/** Whether a create of that name would find it taken (a read made before writing anything). */
export async function nameInUse(workspaceId: number, name: string): Promise<boolean> {
  const pointer = await getPointer(workspaceId, name);
  return pointer !== undefined && (await pointerLive(workspaceId, name, pointer));
}

async function pointerLive(workspaceId: number, name: string, pointer: NamePointer): Promise<boolean> {
  if (Date.now() - pointer.claimed_at < GRACE_MS) return true;
  return (await headById(workspaceId, pointer.collection_id))?.collection_name === name;
}

/** Takes the name for the collection; a 409 when another collection holds it. */
export async function claimName(workspaceId: number, name: string, collectionId: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await getPointer(workspaceId, name);
    if (current?.collection_id === collectionId) return;
    if (current && (await pointerLive(workspaceId, name, current))) throw nameTaken(name);
    try {
      await dynamo.send(
        new PutCommand({
          TableName: table(),
          Item: { ...nameKey(workspaceId, name), collection_id: collectionId, claimed_at: Date.now() },
          ...(current
            ? {
                ConditionExpression: 'collection_id = :old',
                ExpressionAttributeValues: { ':old': current.collection_id },
              }
            : { ConditionExpression: 'attribute_not_exists(PK)' }),
        }),
      );
      return;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
  throw nameTaken(name);
}

/** Gives the name up, unless another collection has taken it since. */
export async function releaseName(workspaceId: number, name: string, collectionId: string): Promise<void> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: nameKey(workspaceId, name),
        ConditionExpression: 'collection_id = :id',
        ExpressionAttributeValues: { ':id': collectionId },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

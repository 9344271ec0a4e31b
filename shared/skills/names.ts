import { conflict } from '#shared/platform/errors.ts';
import {
  claimOwner,
  claimUniqueName,
  type NameClaim,
  nameHeld,
  releaseUniqueName,
} from '#shared/platform/name-claims.ts';
import { headById, type SkillHead } from './collection.ts';

/**
 * Collection names, unique per workspace: one claim item per name (shared/platform/name-claims.ts),
 * `W#<ws>#SKN#<name>` -> the collection's UUID. A name is held while the collection it names carries it
 * (or for the claims' grace period). Reads by name trust a claim only when the head it names carries
 * that name.
 */
const nameClaim = (workspaceId: number, name: string): NameClaim<string> => ({
  key: { PK: `W#${workspaceId}#SKN#${name}`, SK: 'SKN' },
  ownerAttribute: 'collection_id',
  holds: async (id) => (await headById(workspaceId, id))?.collection_name === name,
  taken: () => nameTaken(name),
});

export const nameTaken = (name: string) => conflict(`A skill collection named ${name} already exists`);

/** The live collection of that name, if any. */
export async function headByName(workspaceId: number, name: string): Promise<SkillHead | undefined> {
  const id = await claimOwner(nameClaim(workspaceId, name));
  if (id === undefined) return undefined;
  const head = await headById(workspaceId, id);
  return head?.collection_name === name ? head : undefined;
}

/** Whether a create of that name would find it taken (a read made before writing anything). */
export const nameInUse = (workspaceId: number, name: string): Promise<boolean> =>
  nameHeld(nameClaim(workspaceId, name));

/** Takes the name for the collection; a 409 when another collection holds it. */
export const claimName = async (workspaceId: number, name: string, collectionId: string): Promise<void> => {
  await claimUniqueName(nameClaim(workspaceId, name), collectionId);
};

/** Gives the name up, unless another collection has taken it since. */
export const releaseName = async (workspaceId: number, name: string, collectionId: string): Promise<void> => {
  await releaseUniqueName(nameClaim(workspaceId, name), collectionId);
};

import type { AppError } from './errors.ts';
import { deleteItem, getItem, putNewItem } from './items.ts';

/**
 * Names unique within a scope (a workspace's skill collections and dataset groups, a folder's subfolders) without
 * transactions: one claim item per name, `{<owner attribute>: owner, claimed_at}`, taken with a
 * conditional put before the entity carries the name and given up after it stops carrying it. A claim
 * is held while its owner carries the name (`holds`), or for NAME_CLAIM_GRACE_MS after it was taken (a
 * create or rename still on its way to the entity, longer than any takes); a claim that is neither, left
 * by a write that stopped halfway, is taken over by the next claim of the name.
 */
export const NAME_CLAIM_GRACE_MS = 60_000;

const MAX_ATTEMPTS = 10;

export interface NameClaim<O extends number | string> {
  key: { PK: string; SK: string };
  /** The claim item's attribute naming its owner. */
  ownerAttribute: string;
  /** The claim item's attribute holding when it was taken (epoch ms; default `claimed_at`). */
  claimedAtAttribute?: string;
  /** Whether that owner (still) carries the name. */
  holds(owner: O): Promise<boolean>;
  /** The 409 for a name another owner holds. */
  taken(): AppError;
}

/** The owner the claim item names, if there is one (held or stale). */
export async function claimOwner<O extends number | string>(claim: NameClaim<O>): Promise<O | undefined> {
  const item = await getItem(claim.key);
  return item?.[claim.ownerAttribute] as O | undefined;
}

/** Whether a claim of the name would find it held (a read made before writing anything). */
export async function nameHeld<O extends number | string>(claim: NameClaim<O>): Promise<boolean> {
  const item = await getItem(claim.key);
  return item !== undefined && (await live(claim, item));
}

/** Takes the name for `owner` (already its: done); a 409 when another owner holds it. */
export async function claimUniqueName<O extends number | string>(
  claim: NameClaim<O>,
  owner: O,
): Promise<void> {
  const attribute = claim.ownerAttribute;
  const claimedAt = claim.claimedAtAttribute ?? 'claimed_at';
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await putNewItem({ ...claim.key, [attribute]: owner, [claimedAt]: Date.now() })) return;
    const held = await getItem(claim.key);
    if (!held) continue; // given up between the put and the read
    if (held[attribute] === owner) return;
    if (await live(claim, held)) throw claim.taken();
    // Stale: removed only as it was read, so a claim taken meanwhile stays.
    await deleteItem(claim.key, `#${attribute} = :owner AND #${claimedAt} = :at`, {
      ':owner': held[attribute],
      ':at': held[claimedAt],
    });
  }
  throw claim.taken();
}

/** Gives the name up, unless another owner holds it by now. */
export async function releaseUniqueName<O extends number | string>(
  claim: Pick<NameClaim<O>, 'key' | 'ownerAttribute'>,
  owner: O,
): Promise<void> {
  await deleteItem(claim.key, `#${claim.ownerAttribute} = :owner`, { ':owner': owner });
}

async function live<O extends number | string>(
  claim: NameClaim<O>,
  item: Record<string, unknown>,
): Promise<boolean> {
  return (
    Date.now() - Number(item[claim.claimedAtAttribute ?? 'claimed_at']) < NAME_CLAIM_GRACE_MS ||
    (await claim.holds(item[claim.ownerAttribute] as O))
  );
}

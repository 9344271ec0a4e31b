import type { AppError } from './errors.ts';
import { deleteItem, getItem, putNewItem } from './items.ts';

/**
 * Names unique within a scope (a workspace's skill collections and dataset groups, a folder's
 * subfolders, an entity type's external ids: shared/external-ids/) without
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
  /** More attributes the claim item carries (index keys, what the name is). */
  attributes?: Readonly<Record<string, unknown>>;
  /** Whether that owner (still) carries the name. */
  holds(owner: O): Promise<boolean>;
  /** Whether the owner is gone for good (deleted): its claim is free at once, grace or not. */
  freed?(owner: O): Promise<boolean>;
  /**
   * Whether a claim another owner holds is this claimant's to share (racing creates of one entity):
   * the claim then answers that owner instead of a 409.
   */
  shares?(held: Record<string, unknown>): boolean;
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

/**
 * Takes the name for `owner` (`created`; already its: not created); a 409 when another owner holds it.
 * Answers the owner that holds it now: `owner`, or the one it shares the claim with (`shares`).
 */
export async function claimUniqueName<O extends number | string>(
  claim: NameClaim<O>,
  owner: O,
): Promise<{ owner: O; created: boolean }> {
  const attribute = claim.ownerAttribute;
  const claimedAt = claim.claimedAtAttribute ?? 'claimed_at';
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const item = { ...claim.key, [claimedAt]: Date.now(), ...claim.attributes, [attribute]: owner };
    if (await putNewItem(item)) return { owner, created: true };
    const held = await getItem(claim.key);
    if (!held) continue; // given up between the put and the read
    if (held[attribute] === owner) return { owner, created: false };
    if (claim.shares?.(held)) return { owner: held[attribute] as O, created: false };
    if (await live(claim, held)) throw claim.taken();
    // Stale: removed only as it was read, so a claim taken meanwhile stays.
    await deleteItem(claim.key, `#${attribute} = :owner AND #${claimedAt} = :at`, {
      ':owner': held[attribute],
      ':at': held[claimedAt],
    });
  }
  throw claim.taken();
}

/** Gives the name up, unless another owner holds it by now; false when `owner` did not hold it. */
export function releaseUniqueName<O extends number | string>(
  claim: Pick<NameClaim<O>, 'key' | 'ownerAttribute'>,
  owner: O,
): Promise<boolean> {
  return deleteItem(claim.key, `#${claim.ownerAttribute} = :owner`, { ':owner': owner });
}

async function live<O extends number | string>(
  claim: NameClaim<O>,
  item: Record<string, unknown>,
): Promise<boolean> {
  const owner = item[claim.ownerAttribute] as O;
  if (claim.freed && (await claim.freed(owner))) return false;
  return (
    Date.now() - Number(item[claim.claimedAtAttribute ?? 'claimed_at']) < NAME_CLAIM_GRACE_MS ||
    (await claim.holds(owner))
  );
}

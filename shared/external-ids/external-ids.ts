import { createHash } from 'node:crypto';
import { EXTERNAL_ID_TYPES, type ExternalIdType } from '#shared/entities/kinds.ts';
import { queryIndexPartition } from '#shared/platform/dynamo.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { getItem } from '#shared/platform/items.ts';
import { claimUniqueName, NAME_CLAIM_GRACE_MS, releaseUniqueName } from '#shared/platform/name-claims.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * External id mappings (`{source, external_id}` pairs a client attaches to an entity), for every entity
 * type that carries them. One item per mapping, keyed by the entity type and a hash of the pair, so a
 * conditional put makes a mapping belong to one entity of that type; the entity's mappings are found
 * through GSI1 rather than copied onto the entity.
 *
 *   W#<ws>#XID#<type>#<sha256(pair)>  XID   entity_type, entity_id, source, external_id, created_at,
 *                                           owner_name (when claimed by a create, see claimExternalIds)
 *     GSI1  W#<ws>#XIDS#<type>#<entity id>  <created_at>#<hash>
 *
 * The entity types are the kinds' external-id types (shared/entities/kinds.ts).
 *
 * The pair is hashed because a source (128 chars) and an id (512 chars) could exceed DynamoDB's key size.
 */
export const EXTERNAL_ID_ENTITIES = EXTERNAL_ID_TYPES;
export type ExternalIdEntity = ExternalIdType;

export const externalIdSchema = z
  .strictObject({
    source: wellFormedString().check(z.minLength(1), z.maxLength(128)),
    external_id: wellFormedString().check(z.minLength(1), z.maxLength(512)),
  })
  .clone()
  .register(z.globalRegistry, { id: 'ExternalId' });
export type ExternalId = z.infer<typeof externalIdSchema>;

/** The answers of the external-id routes every entity type has (operations.ts). */
export const externalIdResponses = {
  attached: z.object({ success: z.literal(true), external_id: externalIdSchema }),
  list: z.object({ success: z.literal(true), external_ids: z.array(externalIdSchema) }),
  detached: z.object({ success: z.literal(true) }),
};

/** How messages name an entity of the type: its kind's noun, which is the type in words (kinds.ts, tested). */
const entityWord = (entity: ExternalIdEntity) => entity.replaceAll('_', ' ');

const pairText = (mapping: ExternalId) => JSON.stringify([mapping.source, mapping.external_id]);

const pairHash = (mapping: ExternalId) =>
  createHash('sha256').update(pairText(mapping), 'utf8').digest('hex');

const mappingKey = (workspaceId: number, entity: ExternalIdEntity, mapping: ExternalId) => ({
  PK: `W#${workspaceId}#XID#${entity}#${pairHash(mapping)}`,
  SK: 'XID',
});

const entityIndexPk = (workspaceId: number, entity: ExternalIdEntity, entityId: number) =>
  `W#${workspaceId}#XIDS#${entity}#${entityId}`;

const named = (mapping: ExternalId) => `External ID ${mapping.source}/${mapping.external_id}`;

export function externalIdConflict(entity: ExternalIdEntity, mapping: ExternalId) {
  return conflict(
    `${named(mapping)} is already attached to another ${entityWord(entity)}`,
    'external_id_conflict',
  );
}

export function externalIdNotAttached(entity: ExternalIdEntity, entityId: number, mapping: ExternalId) {
  return notFound(`${named(mapping)} is not attached to ${entityWord(entity)} ${entityId}`);
}

/**
 * For an entity type whose creation claims mappings before the entity is written: whether the entity
 * exists. A mapping whose owner does not exist CLAIM_GRACE_MS after it was claimed was left by a
 * create that crashed, and is taken over instead of answering 409 for ever.
 */
export interface ClaimOptions {
  ownerExists?(workspaceId: number, entityId: number): Promise<boolean>;
  /**
   * For an entity type that can be deleted: whether the entity holding a mapping was deleted. A deleted
   * entity is a 404 everywhere, so nothing could detach its mappings: they are free to claim at once.
   */
  ownerDeleted?(workspaceId: number, entityId: number): Promise<boolean>;
}

/** How a create claims: for an entity of a name that concurrent creates may share (see claimExternalIds). */
export interface CreateClaimOptions extends ClaimOptions {
  /** Kept with each mapping claimed: the name the entity is being created under. */
  ownerName?: string;
  /** A mapping held by another entity claimed under `ownerName` is that entity's to share, not a conflict. */
  adoptSameName?: boolean;
}

/** Longer than any create takes between claiming its mappings and writing its entity: the name claims' grace. */
export const CLAIM_GRACE_MS = NAME_CLAIM_GRACE_MS;

/** Identical pairs once, in the order given. */
export function uniqueExternalIds(mappings: readonly ExternalId[]): ExternalId[] {
  const seen = new Map<string, ExternalId>();
  for (const mapping of mappings) seen.set(pairText(mapping), mapping);
  return [...seen.values()];
}

/**
 * Attaches one mapping. 'created' when new, 'existing' when the entity already had it (idempotent);
 * a 409 when it belongs to another entity of the type (unless abandoned, see ClaimOptions).
 */
export async function attachExternalId(
  workspaceId: number,
  entity: ExternalIdEntity,
  entityId: number,
  mapping: ExternalId,
  options: ClaimOptions = {},
): Promise<'created' | 'existing'> {
  return (await claimMapping(workspaceId, entity, entityId, mapping, options)).created
    ? 'created'
    : 'existing';
}

/**
 * Claims the mapping for `entityId` (shared/platform/name-claims.ts: the pair is the name, unique per
 * entity type), or finds who holds it: `owner` is the entity that has it now. A mapping held by another
 * entity is taken over when that entity was deleted, or never written (see ClaimOptions).
 */
function claimMapping(
  workspaceId: number,
  entity: ExternalIdEntity,
  entityId: number,
  mapping: ExternalId,
  options: CreateClaimOptions,
): Promise<{ owner: number; created: boolean }> {
  const createdAt = Date.now();
  const { ownerExists, ownerDeleted, ownerName } = options;
  const shareable = options.adoptSameName === true && ownerName !== undefined;
  return claimUniqueName<number>(
    {
      key: mappingKey(workspaceId, entity, mapping),
      ownerAttribute: 'entity_id',
      claimedAtAttribute: 'created_at',
      attributes: {
        GSI1PK: entityIndexPk(workspaceId, entity, entityId),
        GSI1SK: `${String(createdAt).padStart(15, '0')}#${pairHash(mapping)}`,
        entity_type: entity,
        source: mapping.source,
        external_id: mapping.external_id,
        created_at: createdAt,
        owner_name: ownerName,
      },
      // Without `ownerExists` the owner is always there: only a deletion frees its mappings.
      holds: async (owner) => ownerExists === undefined || ownerExists(workspaceId, owner),
      freed: ownerDeleted && ((owner) => ownerDeleted(workspaceId, owner)),
      shares: shareable ? (held) => held.owner_name === ownerName : undefined,
      taken: () => externalIdConflict(entity, mapping),
    },
    entityId,
  );
}

/**
 * Attaches several mappings as one: on a conflict, the ones this call created are detached again and
 * the 409 is thrown, so the caller's entity ends with none of them. `release` undoes a successful claim
 * (when what the mappings were claimed for then fails).
 *
 * With `adoptSameName`, the claim is made by one of possibly several concurrent creates of one name
 * (first publishes of a prompt template): the mapping first in a fixed order is claimed alone, and if an
 * entity claimed under the same name holds it, the rest are claimed for that entity and its id is the
 * answer's `entityId`. Whoever holds that first mapping decides, so racing creates with the same
 * mappings agree on one entity instead of refusing each other.
 */
export async function claimExternalIds(
  workspaceId: number,
  entity: ExternalIdEntity,
  entityId: number,
  mappings: readonly ExternalId[],
  options: CreateClaimOptions = {},
): Promise<{ entityId: number; release(): Promise<void> }> {
  let owner = entityId;
  let rest = mappings;
  const created: ExternalId[] = [];
  const release = async () => {
    await Promise.all(created.map((mapping) => detachExternalId(workspaceId, entity, owner, mapping)));
  };
  if (options.adoptSameName) {
    const [lead, ...others] = [...mappings].sort((a, b) => (pairText(a) < pairText(b) ? -1 : 1));
    if (lead) {
      const claim = await claimMapping(workspaceId, entity, owner, lead, options);
      owner = claim.owner;
      if (claim.created) created.push(lead);
      rest = others;
    }
  }
  const outcomes = await Promise.allSettled(
    rest.map((mapping) =>
      claimMapping(workspaceId, entity, owner, mapping, { ...options, adoptSameName: false }),
    ),
  );
  rest.forEach((mapping, i) => {
    const outcome = outcomes[i];
    if (outcome?.status === 'fulfilled' && outcome.value.created) created.push(mapping);
  });
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await release();
    throw failed.reason;
  }
  return { entityId: owner, release };
}

/** The entity a mapping belongs to, if any. */
export async function findExternalIdOwner(
  workspaceId: number,
  entity: ExternalIdEntity,
  mapping: ExternalId,
): Promise<number | undefined> {
  return (await getItem(mappingKey(workspaceId, entity, mapping)))?.entity_id as number | undefined;
}

/** The entity's mappings, oldest first. */
export async function listExternalIds(
  workspaceId: number,
  entity: ExternalIdEntity,
  entityId: number,
): Promise<ExternalId[]> {
  const items = await queryIndexPartition('GSI1', entityIndexPk(workspaceId, entity, entityId));
  return items.map((item) => ({ source: item.source as string, external_id: item.external_id as string }));
}

/** Detaches a mapping from the entity; false when the entity does not have it. */
export async function detachExternalId(
  workspaceId: number,
  entity: ExternalIdEntity,
  entityId: number,
  mapping: ExternalId,
): Promise<boolean> {
  return releaseUniqueName(
    { key: mappingKey(workspaceId, entity, mapping), ownerAttribute: 'entity_id' },
    entityId,
  );
}

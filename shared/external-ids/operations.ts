import {
  attachExternalId,
  type ClaimOptions,
  detachExternalId,
  type ExternalId,
  type ExternalIdEntity,
  externalIdNotAttached,
  listExternalIds,
} from './external-ids.ts';

/**
 * The three external-id endpoints every entity type has (attach, list, detach under
 * `/<entities>/{id}/external-ids`), built once over what differs between types: how the entity is found.
 */
export interface ExternalIdOwner<T> extends ClaimOptions {
  entity: ExternalIdEntity;
  /** The workspace's entity of that id; a 404 when there is none (another workspace's included). */
  require(workspaceId: number, entityId: number): Promise<T>;
  /** Runs before a mapping is attached, e.g. to flag the entity as having mappings. */
  beforeAttach?(workspaceId: number, entity: T): Promise<void>;
}

export function externalIdOperations<T>(owner: ExternalIdOwner<T>) {
  return {
    /** Idempotent for this entity; a 409 when another entity of the type has the mapping. */
    async attach(workspaceId: number, entityId: number, mapping: ExternalId) {
      const entity = await owner.require(workspaceId, entityId);
      await owner.beforeAttach?.(workspaceId, entity);
      await attachExternalId(workspaceId, owner.entity, entityId, mapping, owner);
      return { success: true as const, external_id: mapping };
    },

    async list(workspaceId: number, entityId: number) {
      await owner.require(workspaceId, entityId);
      return {
        success: true as const,
        external_ids: await listExternalIds(workspaceId, owner.entity, entityId),
      };
    },

    /**
     * A 404 when the entity does not have the mapping. `mapping` may be the route's whole path: only
     * the pair is read.
     */
    async detach(workspaceId: number, entityId: number, mapping: ExternalId) {
      await owner.require(workspaceId, entityId);
      if (!(await detachExternalId(workspaceId, owner.entity, entityId, mapping))) {
        throw externalIdNotAttached(owner.entity, entityId, mapping);
      }
      return { success: true as const };
    },
  };
}

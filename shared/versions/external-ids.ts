import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { notFound } from '#shared/platform/errors.ts';
import type { Head, LabelEntryBase } from './kind.ts';
import { findHeadById } from './read.ts';
import type { VersionStore } from './store.ts';

/**
 * A first publish claims its mappings before the entity exists (publish.ts): one that crashed in
 * between leaves mappings of an entity that never came to be, which a later claim takes over once
 * CLAIM_GRACE_MS have passed. An entity exists once its head does.
 */
export function entityMappings<V, L extends LabelEntryBase, X>(store: VersionStore<V, L, X>) {
  return {
    entity: store.kind.externalIdEntity,
    ownerExists: async (workspaceId: number, entityId: number) =>
      (await findHeadById(store, workspaceId, entityId)) !== undefined,
  };
}

/** External ids of a kind's entities (attach, list and detach), on the feature-neutral mappings. */
export function entityExternalIds<V, L extends LabelEntryBase, X>(store: VersionStore<V, L, X>) {
  return externalIdOperations<Head<L, X>>({
    ...entityMappings(store),
    async require(workspaceId, entityId) {
      const head = await findHeadById(store, workspaceId, entityId);
      if (!head) throw notFound(`${store.kind.noun} ${entityId} not found`);
      return head;
    },
    // The head learns it has mappings before the first one exists, so a reader never misses one. The
    // flag is all that changes (not updated_at): an attach refused with a 409 leaves nothing a client
    // can see.
    async beforeAttach(workspaceId, head) {
      if (!head.has_external_ids) await store.updateHead(workspaceId, head.name, { markExternalIds: true });
    },
  });
}

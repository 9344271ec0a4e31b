import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { AppError } from '#shared/platform/errors.ts';
import { entityExternalIds } from '#shared/versions/external-ids.ts';
import { skillStore } from './collection.ts';
import { requireCollection } from './read.ts';

/**
 * External ids of skill collections (attach, list and detach), those of every versioned entity kind.
 * Mappings are kept under the collection's internal entity number; clients name it by UUID (or name),
 * and messages name it as the client did.
 */
const operations = entityExternalIds(skillStore);

async function internalId(workspaceId: number, identifier: string): Promise<number> {
  return (await requireCollection(workspaceId, identifier)).id;
}

export const skillExternalIds = {
  async attach(workspaceId: number, identifier: string, mapping: ExternalId) {
    return operations.attach(workspaceId, await internalId(workspaceId, identifier), mapping);
  },
  async list(workspaceId: number, identifier: string) {
    return operations.list(workspaceId, await internalId(workspaceId, identifier));
  },
  async detach(workspaceId: number, identifier: string, mapping: ExternalId) {
    const id = await internalId(workspaceId, identifier);
    try {
      return await operations.detach(workspaceId, id, mapping);
    } catch (error) {
      if (error instanceof AppError && error.status === 404) {
        throw new AppError(
          404,
          error.code,
          `External ID ${mapping.source}/${mapping.external_id} is not attached to skill collection ${identifier}`,
        );
      }
      throw error;
    }
  },
};

import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { notFound } from '#shared/platform/errors.ts';
import { findHeadById } from './read.ts';
import { updateHead } from './repository.ts';

/** External ids of prompt templates (spec 7 and the reads beside it), on the feature-neutral mappings. */
export const templateExternalIds = externalIdOperations({
  entity: 'prompt_template',
  async require(workspaceId, templateId) {
    const head = await findHeadById(workspaceId, templateId);
    if (!head) throw notFound(`Prompt template ${templateId} not found`);
    return head;
  },
  // The head learns it has mappings before the first one exists, so a reader never misses one.
  async beforeAttach(workspaceId, head) {
    if (!head.has_external_ids) {
      await updateHead(workspaceId, head.name, { updatedAt: Date.now(), markExternalIds: true });
    }
  },
});

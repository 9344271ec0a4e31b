import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { notFound } from '#shared/platform/errors.ts';
import { findHeadById } from './read.ts';
import type { TemplateHead } from './records.ts';
import { updateHead } from './repository.ts';

/**
 * A first publish claims its mappings before the template exists (publish.ts): one that crashed in
 * between leaves mappings of a template that never came to be, which a later claim takes over once
 * CLAIM_GRACE_MS have passed. A template exists once its head does.
 */
export const TEMPLATE_MAPPINGS = {
  entity: 'prompt_template',
  ownerExists: async (workspaceId: number, templateId: number) =>
    (await findHeadById(workspaceId, templateId)) !== undefined,
} as const;

/** External ids of prompt templates (attach, list and detach), on the feature-neutral mappings. */
export const templateExternalIds = externalIdOperations<TemplateHead>({
  ...TEMPLATE_MAPPINGS,
  async require(workspaceId, templateId) {
    const head = await findHeadById(workspaceId, templateId);
    if (!head) throw notFound(`Prompt template ${templateId} not found`);
    return head;
  },
  // The head learns it has mappings before the first one exists, so a reader never misses one. The flag
  // is all that changes (not updated_at): an attach refused with a 409 leaves nothing a client can see.
  async beforeAttach(workspaceId, head) {
    if (!head.has_external_ids) await updateHead(workspaceId, head.name, { markExternalIds: true });
  },
});

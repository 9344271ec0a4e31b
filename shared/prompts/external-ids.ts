import {
  attachExternalId,
  detachExternalId,
  type ExternalId,
  listExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { notFound } from '#shared/platform/errors.ts';
import { findHeadById } from './read.ts';
import type { TemplateHead } from './records.ts';
import { updateHead } from './repository.ts';

/** External ids of prompt templates (spec 7 and the reads beside it), on the feature-neutral mappings. */

async function requireTemplate(workspaceId: number, templateId: number): Promise<TemplateHead> {
  const head = await findHeadById(workspaceId, templateId);
  if (!head) throw notFound(`Prompt template ${templateId} not found`);
  return head;
}

/** Attaches a mapping; idempotent for this template, 409 when another template has it. */
export async function attachTemplateExternalId(workspaceId: number, templateId: number, mapping: ExternalId) {
  const head = await requireTemplate(workspaceId, templateId);
  // The head learns it has mappings before the first one exists, so a reader never misses one.
  if (!head.has_external_ids) {
    await updateHead(workspaceId, head.name, { updatedAt: Date.now(), markExternalIds: true });
  }
  await attachExternalId(workspaceId, 'prompt_template', templateId, mapping);
  return { success: true as const, external_id: mapping };
}

export async function listTemplateExternalIds(workspaceId: number, templateId: number) {
  await requireTemplate(workspaceId, templateId);
  return {
    success: true as const,
    external_ids: await listExternalIds(workspaceId, 'prompt_template', templateId),
  };
}

export async function detachTemplateExternalId(workspaceId: number, templateId: number, mapping: ExternalId) {
  await requireTemplate(workspaceId, templateId);
  if (!(await detachExternalId(workspaceId, 'prompt_template', templateId, mapping))) {
    throw notFound(
      `External ID ${mapping.source}/${mapping.external_id} is not attached to prompt template ${templateId}`,
    );
  }
  return { success: true as const };
}

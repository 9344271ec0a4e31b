import type { PromptBlueprint } from '#shared/blueprints/schema.ts';
import type { Head } from '#shared/versions/kind.ts';

export { labelOf } from '#shared/versions/kind.ts';

/** The registry's stored shapes as the domain sees them. Times are epoch milliseconds. */

/** Where a release label points. Kept in the head's `labels` map under the label's name. */
export interface LabelEntry {
  id: number;
  prompt_version_id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

/** The head item of a template: what is shared by its versions (see shared/versions/kind.ts). */
export type TemplateHead = Head<LabelEntry, { tags: string[]; folder_id: number | null }>;

/** `metadata` of a version: `model` plus any custom fields, kept as sent. */
export type VersionMetadata = Record<string, unknown> & { model?: Record<string, unknown> | null };

export interface VersionRecord {
  id: number;
  prompt_id: number;
  prompt_name: string;
  number: number;
  prompt_template: PromptBlueprint;
  metadata: VersionMetadata | null;
  commit_message: string | null;
  created_at: number;
}

import type { PromptBlueprint } from '#shared/blueprints/schema.ts';

/** The registry's stored shapes as the domain sees them. Times are epoch milliseconds. */

/** Where a release label points. Kept in the head's `labels` map under the label's name. */
export interface LabelEntry {
  id: number;
  prompt_version_id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

/** The head item of a template: what is shared by its versions. */
export interface TemplateHead {
  id: number;
  name: string;
  tags: string[];
  folder_id: number | null;
  created_at: number;
  updated_at: number;
  /** By label name; client-named keys, so read them with `labelOf` (never through the prototype). */
  labels: Record<string, LabelEntry>;
  /** Set before the first external id is attached: tells readers whether listing mappings is worth a call. */
  has_external_ids: boolean;
}

/** The label of that name, if the template has it (a label may be called `constructor`). */
export const labelOf = (head: Pick<TemplateHead, 'labels'>, label: string): LabelEntry | undefined =>
  Object.hasOwn(head.labels, label) ? head.labels[label] : undefined;

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

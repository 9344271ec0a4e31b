import type { KindExternalId, KindIdKind } from '#shared/entities/kinds.ts';
import { jsonDocVersions, type VersionKind } from '#shared/versions/kind.ts';
import { versionStore } from '#shared/versions/store.ts';
import type { LabelEntry, TemplateHead, VersionRecord } from './records.ts';

/**
 * Prompt templates as a kind of the shared versioned entities (shared/versions). Their stored items
 * keep the registry's original attribute names (`prompt_version_id` in label entries and copies,
 * `prompt_name` in label pointers), so items written before the module was shared read unchanged.
 */
export const PROMPT_KIND: VersionKind<VersionRecord, LabelEntry, Pick<TemplateHead, 'tags' | 'folder_id'>> = {
  tag: 'P',
  listing: 'PROMPTS',
  ids: { entity: 'prompt' satisfies KindIdKind<'prompt'>, version: 'prompt_version', label: 'prompt_label' },
  externalIdEntity: 'prompt_template' satisfies KindExternalId<'prompt'>,
  noun: 'Prompt template',
  labelNoun: 'Prompt label',
  versionIdField: 'prompt_version_id',
  nameField: 'prompt_name',
  placeOf: (version) => ({
    id: version.id,
    entityId: version.prompt_id,
    name: version.prompt_name,
    number: version.number,
    created_at: version.created_at,
  }),
  headFields: (item) => ({
    tags: (item.tags as string[] | undefined) ?? [],
    folder_id: (item.folder_id as number | null | undefined) ?? null,
  }),
  ...jsonDocVersions<VersionRecord>(),
};

export const promptStore = versionStore(PROMPT_KIND);

import type { PromptBlueprint } from '#shared/blueprints/schema.ts';
import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { toIso } from '#shared/platform/time.ts';
import { sortedLabels } from '#shared/versions/labels.ts';
import type { LabelEntry, TemplateHead, VersionRecord } from './records.ts';
import type { SnippetUse } from './snippets.ts';

/** The registry's answers, field for field as the reference API names them. */

/** GET /prompt-templates/{identifier} ("Prompt template (raw)"). */
export interface RawTemplateView {
  success: true;
  id: number;
  prompt_name: string;
  version: number;
  workspace_id: number;
  prompt_template: PromptBlueprint;
  metadata: VersionRecord['metadata'];
  commit_message: string | null;
  tags: string[];
  created_at: string;
  snippets: SnippetUse[];
  llm_kwargs?: Record<string, unknown>;
  /** Registry tool references left out because they no longer resolve; absent when all resolved. */
  warning?: string;
}

export function toRawTemplateView(
  workspaceId: number,
  head: TemplateHead,
  version: VersionRecord,
  blueprint: PromptBlueprint,
  snippets: SnippetUse[],
  llmKwargs?: Record<string, unknown>,
): RawTemplateView {
  const view: RawTemplateView = {
    success: true,
    id: head.id,
    prompt_name: head.name,
    version: version.number,
    workspace_id: workspaceId,
    prompt_template: blueprint,
    metadata: version.metadata,
    commit_message: version.commit_message,
    tags: head.tags,
    created_at: toIso(version.created_at),
    snippets,
  };
  if (llmKwargs) view.llm_kwargs = llmKwargs;
  return view;
}

/** POST /rest/prompt-templates. */
export function toPublishView(
  head: Pick<TemplateHead, 'id' | 'name' | 'tags'>,
  version: VersionRecord,
  releaseLabels: string[],
  externalIds: ExternalId[],
) {
  return {
    id: head.id,
    prompt_name: head.name,
    prompt_version_id: version.id,
    version_number: version.number,
    tags: head.tags,
    release_labels: releaseLabels,
    prompt_template: version.prompt_template,
    metadata: version.metadata,
    commit_message: version.commit_message,
    external_ids: externalIds,
  };
}

/** The prompt label object (PATCH /prompt-labels/{id}). */
export function toLabelView(promptId: number, name: string, entry: LabelEntry) {
  return {
    id: entry.id,
    name,
    prompt_id: promptId,
    prompt_version_id: entry.prompt_version_id,
    prompt_version_number: entry.version_number,
    created_at: toIso(entry.created_at),
    updated_at: toIso(entry.updated_at),
  };
}

/** GET /prompt-templates/{identifier}/labels: the labels by name, each with the id PATCH takes. */
export function toLabelsView(head: TemplateHead) {
  return {
    release_labels: sortedLabels(head).map(([name, entry]) => ({
      release_label: name,
      release_label_id: entry.id,
      prompt_version_id: entry.prompt_version_id,
      prompt_version_number: entry.version_number,
    })),
  };
}

/** An item of GET /prompt-templates: the template with its latest version. */
export function toListItem(head: TemplateHead, latest: VersionRecord, externalIds: ExternalId[]) {
  return {
    id: head.id,
    prompt_name: head.name,
    prompt_template: latest.prompt_template,
    metadata: latest.metadata,
    commit_message: latest.commit_message,
    version: latest.number,
    external_ids: externalIds,
    is_snippet: latest.prompt_template.type === 'completion',
    tags: head.tags,
    folder_id: head.folder_id,
    release_labels: Object.keys(head.labels).sort(),
    created_at: toIso(head.created_at),
    updated_at: toIso(head.updated_at),
  };
}

/** An item of GET /prompt-templates/{identifier}/versions: a version without its template body. */
export function toVersionSummary(version: VersionRecord, labels: string[]) {
  const model = version.metadata?.model;
  return {
    id: version.id,
    version_number: version.number,
    commit_message: version.commit_message,
    created_at: toIso(version.created_at),
    release_labels: labels,
    model:
      model && typeof model.name === 'string' && typeof model.provider === 'string'
        ? { provider: model.provider, name: model.name }
        : null,
    template_type: version.prompt_template.type,
  };
}

/** `prompt_version` of POST /log-request: the version a logged request used. */
export function toPromptVersionView(version: VersionRecord) {
  return {
    id: version.id,
    prompt_id: version.prompt_id,
    prompt_name: version.prompt_name,
    version_number: version.number,
    prompt_template: version.prompt_template,
    metadata: version.metadata,
    commit_message: version.commit_message,
    created_at: toIso(version.created_at),
  };
}

import { withBlueprintDefaults } from '#shared/blueprints/schema.ts';
import type { EventActor } from '#shared/events/emit.ts';
import { uniqueExternalIds } from '#shared/external-ids/external-ids.ts';
import { requireFolder } from '#shared/folders/require.ts';
import { forbidden, payloadTooLarge } from '#shared/platform/errors.ts';
import {
  type LabelChange,
  largestLabelEntry,
  MAX_HEAD_BYTES,
  MAX_VERSION_BYTES,
  publishVersion,
  readForPublish,
} from '#shared/versions/publish.ts';
import { emitPromptEvents, type PromptEvent } from './events.ts';
import type { PromptBlueprint } from './llm-kwargs/blueprint.ts';
import { snippetLoader } from './read.ts';
import type { LabelEntry, VersionRecord } from './records.ts';
import { PROMPT_KIND, promptStore, storedHeadBytes, storedVersionBytes } from './repository.ts';
import type { PublishBody } from './schemas.ts';
import { recordSnippetUsage } from './snippet-usage.ts';
import { resolveSnippets } from './snippets.ts';
import { invalidateTemplate } from './template-cache.ts';
import { checkToolReferences } from './tool-refs.ts';
import { toPublishView } from './views.ts';

/**
 * POST /rest/prompt-templates: publishes a new version, creating the template on its first publish.
 *
 * Everything that can refuse the publish (body, folder, snippets, registry tool references, external ids) is checked before the first
 * write that a client could see; the writes are the shared publish of versioned entities
 * (shared/versions/publish.ts: claims, the version with dense numbers, pointers and label copies, then
 * the head). Round trips: 1 for the folder, snippet and tool-reference checks, the template as it stands and (cold container) the
 * id blocks, together; then those of the shared publish.
 */

export type PublishView = ReturnType<typeof toPublishView>;

export async function publishPromptTemplate(
  workspaceId: number,
  body: PublishBody,
  actor?: EventActor,
): Promise<PublishView> {
  const { prompt_template: template, prompt_version: input } = body;
  if (template.workspace_id != null && template.workspace_id !== workspaceId) {
    throw forbidden(`This API key may not publish to workspace ${template.workspace_id}`);
  }
  await requireFolder(workspaceId, template.folder_id);
  const name = template.prompt_name;
  const labels = [...new Set(body.release_labels ?? [])];
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const blueprint = withBlueprintDefaults(input.prompt_template);

  const now = Date.now();
  const draft: Omit<VersionRecord, 'id' | 'prompt_id' | 'number'> = {
    prompt_name: name,
    prompt_template: blueprint,
    metadata: input.metadata ?? null,
    commit_message: input.commit_message ?? null,
    created_at: now,
  };
  if (storedVersionBytes({ ...draft, id: 0, prompt_id: 0, number: 0 }) > MAX_VERSION_BYTES) {
    throw payloadTooLarge(`A prompt version is at most ${MAX_VERSION_BYTES} bytes as JSON`);
  }

  const [, { references }, , state] = await Promise.all([
    // The folder it is filed under must be one of the workspace's (404).
    requireFolder(workspaceId, template.folder_id),
    // Every snippet reference must resolve now; a chain that leads back to this template is a cycle.
    resolveSnippets(blueprint as PromptBlueprint, snippetLoader(workspaceId), { selfName: name }),
    // Every registry tool reference must name a tool (version, label) of the workspace now.
    checkToolReferences(workspaceId, blueprint as PromptBlueprint, [
      'body',
      'prompt_version',
      'prompt_template',
    ]),
    readForPublish(promptStore, workspaceId, name, labels.length),
  ]);
  // The API's default: a publish without tags leaves the template with none.
  const tags = template.tags ?? [];
  // The head must take the new labels and tags: refused now rather than after the version is written.
  const largest = largestLabelEntry(PROMPT_KIND);
  const plannedLabels = Object.fromEntries(labels.map((label) => [label, largest]));
  if (storedHeadBytes({ tags, labels: { ...state.head?.labels, ...plannedLabels } }) > MAX_HEAD_BYTES) {
    throw payloadTooLarge(`A template's tags and labels are at most ${MAX_HEAD_BYTES} bytes as JSON`);
  }

  const published = await publishVersion(promptStore, workspaceId, state, {
    name,
    labels,
    externalIds,
    build: ({ id, entityId, number }) => ({ ...draft, id, prompt_id: entityId, number }),
    newHead: { tags, folder_id: template.folder_id ?? null },
    headUpdate: { tags, folder_id: template.folder_id },
    changed: () => invalidateTemplate(workspaceId, name),
  });
  const { entityId: templateId, version } = published;
  // After the head: a crash before this leaves the version out of its snippets' usage, nothing worse.
  await recordSnippetUsage(workspaceId, version, references);

  await emitPromptEvents(
    workspaceId,
    [
      {
        type: 'prompt_template_version_created',
        details: {
          prompt_id: templateId,
          prompt_name: name,
          prompt_version_id: version.id,
          version_number: version.number,
        },
      },
      ...published.labelChanges.map((change) => labelEvent(version, change)),
    ],
    actor,
  );
  return toPublishView({ id: templateId, name, tags }, version, published.applied, published.externalIds);
}

function labelEvent(
  version: VersionRecord,
  { label, entry, previous }: LabelChange<LabelEntry>,
): PromptEvent {
  const details = {
    prompt_id: version.prompt_id,
    prompt_name: version.prompt_name,
    prompt_label_id: entry.id,
    label,
    prompt_version_id: version.id,
    version_number: version.number,
  };
  if (!previous) return { type: 'prompt_template_label_created', details };
  return {
    type: 'prompt_template_label_moved',
    details: {
      ...details,
      previous_prompt_version_id: previous.prompt_version_id,
      previous_version_number: previous.version_number,
    },
  };
}

import { withBlueprintDefaults } from '#shared/blueprints/schema.ts';
import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { forbidden, payloadTooLarge } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { emitPromptEvents, type PromptEvent } from './events.ts';
import type { PromptBlueprint } from './llm-kwargs.ts';
import { snippetLoader } from './read.ts';
import type { LabelEntry, TemplateHead, VersionRecord } from './records.ts';
import {
  createHead,
  getHead,
  type HeadAndLatest,
  type LabelMove,
  putPointers,
  putVersion,
  readHeadAndLatest,
  storedVersionBytes,
  updateHead,
} from './repository.ts';
import type { PublishBody } from './schemas.ts';
import { resolveSnippets } from './snippets.ts';
import { invalidateTemplate } from './template-cache.ts';
import { toPublishView } from './views.ts';

/**
 * POST /rest/prompt-templates: publishes a new version, creating the template on its first publish.
 *
 * Order of writes (no transactions; each step leaves the registry readable):
 * 1. external ids are claimed with conditional puts; a conflict releases this call's claims and is a
 *    409 before anything else is written;
 * 2. the version item `V#<n+1>` is put with attribute_not_exists (a race loses, re-reads and takes the
 *    next number: versions are 1..N without gaps or duplicates), together with the id pointers of a new
 *    template or new labels (unreferenced until step 3, so harmless if the publish stops here);
 * 3. the head is created (first publish: this is what makes the template visible) or updated with one
 *    conditional UpdateItem that sets tags and creates or moves every label (compare-and-set against
 *    the head as read; a lost race re-reads and plans again; a label already on a newer version stays).
 * A first publish that loses the race for version 1 adopts the winner's template id, so concurrent
 * first publishes of one name all become versions of one template.
 *
 * Round trips for an existing template: 1 Query, 1 PutItem (plus a parallel BatchWriteItem for new
 * labels), 1 UpdateItem; a listing of external ids only when the template has some.
 */
const MAX_ATTEMPTS = 100;
/** A version must fit in one item (400 KB) with room for keys and attribute names. */
export const MAX_VERSION_BYTES = 350_000;

export type PublishView = ReturnType<typeof toPublishView>;

export async function publishPromptTemplate(workspaceId: number, body: PublishBody): Promise<PublishView> {
  const { prompt_template: template, prompt_version: input } = body;
  if (template.workspace_id != null && template.workspace_id !== workspaceId) {
    throw forbidden(`This API key may not publish to workspace ${template.workspace_id}`);
  }
  const name = template.prompt_name;
  const labels = [...new Set(body.release_labels ?? [])];
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const blueprint = withBlueprintDefaults(input.prompt_template);
  // Every snippet reference must resolve now; a chain that leads back to this template is a cycle.
  await resolveSnippets(blueprint as PromptBlueprint, snippetLoader(workspaceId), { selfName: name });

  const now = Date.now();
  const draft: Omit<VersionRecord, 'prompt_id' | 'number'> = {
    id: 0,
    prompt_name: name,
    prompt_template: blueprint,
    metadata: input.metadata ?? null,
    commit_message: input.commit_message ?? null,
    created_at: now,
  };
  if (storedVersionBytes({ ...draft, prompt_id: 0, number: 0 }) > MAX_VERSION_BYTES) {
    throw payloadTooLarge(`A prompt version is at most ${MAX_VERSION_BYTES} bytes as JSON`);
  }

  let state = await readHeadAndLatest(workspaceId, name);
  let templateId = state.head?.id ?? state.latest?.prompt_id ?? (await nextId('prompt'));
  const claim = async (id: number) =>
    externalIds.length ? claimExternalIds(workspaceId, 'prompt_template', id, externalIds) : undefined;
  let claimed = await claim(templateId);

  const labelIds = new Map<string, number>();
  const pointers = new PointerWriter(workspaceId, name, labelIds);
  let version: VersionRecord;
  try {
    draft.id = await nextId('prompt_version');
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS)
        throw new Error(`No free version number for ${name} after ${attempt} attempts`);
      version = { ...draft, prompt_id: templateId, number: (state.latest?.number ?? 0) + 1 };
      const newLabels = labels.filter((label) => !state.head?.labels[label]);
      const [won] = await Promise.all([
        putVersion(workspaceId, version),
        pointers.write(state.head ? undefined : templateId, newLabels),
      ]);
      if (won) break;
      state = await readHeadAndLatest(workspaceId, name);
      const owner = state.head?.id ?? state.latest?.prompt_id;
      if (owner !== undefined && owner !== templateId) {
        // Another first publish of this name won: this one becomes a version of that template.
        await claimed?.release();
        claimed = undefined;
        templateId = owner;
        claimed = await claim(templateId);
      }
    }
  } catch (error) {
    await claimed?.release();
    throw error;
  }
  invalidateTemplate(workspaceId, name);

  const listingExternalIds =
    state.head?.has_external_ids || externalIds.length
      ? listExternalIds(workspaceId, 'prompt_template', templateId)
      : Promise.resolve([]);
  const [outcome, attached] = await Promise.all([
    writeHead(workspaceId, state, version, {
      labels,
      labelIds,
      pointers,
      tags: template.tags ?? undefined,
      folderId: template.folder_id,
      markExternalIds: externalIds.length > 0,
    }),
    listingExternalIds,
  ]);
  invalidateTemplate(workspaceId, name);

  await emitPromptEvents(workspaceId, [
    {
      type: 'prompt_template_version_created',
      details: {
        prompt_id: templateId,
        prompt_name: name,
        prompt_version_id: version.id,
        version_number: version.number,
      },
    },
    ...outcome.events,
  ]);
  return toPublishView(
    { id: templateId, name, tags: outcome.tags },
    version,
    outcome.applied,
    mergeExternalIds(attached, externalIds),
  );
}

interface HeadPlan {
  labels: string[];
  labelIds: Map<string, number>;
  pointers: PointerWriter;
  tags?: string[];
  folderId?: number | null;
  markExternalIds: boolean;
}

interface HeadOutcome {
  tags: string[];
  /** The labels now on the new version. */
  applied: string[];
  events: PromptEvent[];
}

/** Step 3: creates or updates the head, re-reading and planning again whenever a race is lost. */
async function writeHead(
  workspaceId: number,
  state: HeadAndLatest,
  version: VersionRecord,
  plan: HeadPlan,
): Promise<HeadOutcome> {
  const now = version.created_at;
  const name = version.prompt_name;
  const at = { prompt_version_id: version.id, version_number: version.number };
  const labelEvent = (label: string, entry: LabelEntry, previous?: LabelEntry): PromptEvent => ({
    type: previous ? 'prompt_template_label_moved' : 'prompt_template_label_created',
    details: {
      prompt_id: version.prompt_id,
      prompt_name: name,
      prompt_label_id: entry.id,
      label,
      ...at,
      ...(previous && {
        previous_prompt_version_id: previous.prompt_version_id,
        previous_version_number: previous.version_number,
      }),
    },
  });
  const newEntry = async (label: string): Promise<LabelEntry> => {
    await plan.pointers.write(undefined, [label]);
    return { id: plan.labelIds.get(label)!, ...at, created_at: now, updated_at: now };
  };

  let head: TemplateHead | undefined = state.head;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!head) {
      const entries = await Promise.all(
        plan.labels.map(async (label) => [label, await newEntry(label)] as const),
      );
      const created = await createHead(workspaceId, {
        id: version.prompt_id,
        name,
        tags: plan.tags ?? [],
        folder_id: plan.folderId ?? null,
        created_at: now,
        updated_at: now,
        labels: Object.fromEntries(entries),
        has_external_ids: plan.markExternalIds,
      });
      if (created) {
        return {
          tags: plan.tags ?? [],
          applied: plan.labels,
          events: entries.map(([label, entry]) => labelEvent(label, entry)),
        };
      }
      head = await getHead(workspaceId, name);
      continue;
    }

    const create: Record<string, LabelEntry> = {};
    const move: LabelMove[] = [];
    const events: PromptEvent[] = [];
    const applied: string[] = [];
    for (const label of plan.labels) {
      const current: LabelEntry | undefined = head.labels[label];
      // A newer version (a concurrent publish) already took the label: it stays there.
      if (current && current.version_number > version.number) continue;
      applied.push(label);
      if (current?.version_number === version.number) continue;
      if (current) {
        move.push({ name: label, id: current.id, fromVersion: current.version_number, ...at });
        events.push(labelEvent(label, { ...current, ...at }, current));
      } else {
        create[label] = await newEntry(label);
        events.push(labelEvent(label, create[label]));
      }
    }
    const before = await updateHead(workspaceId, name, {
      updatedAt: now,
      tags: plan.tags,
      folderId: plan.folderId,
      markExternalIds: plan.markExternalIds,
      create,
      move,
    });
    if (before) return { tags: plan.tags ?? before.tags, applied, events };
    head = await getHead(workspaceId, name);
  }
  throw new Error(`Could not update the head of ${name} after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Writes id pointers before anything references them: the template's (when creating it) and each new
 * label's, allocating label ids on first need. Each pointer is written once per publish.
 */
class PointerWriter {
  private readonly written = new Set<string>();

  constructor(
    private readonly workspaceId: number,
    private readonly name: string,
    private readonly labelIds: Map<string, number>,
  ) {}

  async write(templateId: number | undefined, labels: string[]): Promise<void> {
    const template =
      templateId !== undefined && !this.written.has(`T${templateId}`)
        ? { id: templateId, name: this.name }
        : undefined;
    const fresh = labels.filter((label) => !this.labelIds.has(label));
    for (const label of fresh) this.labelIds.set(label, await nextId('prompt_label'));
    const pending = labels.filter((label) => !this.written.has(`L${label}`));
    if (!template && pending.length === 0) return;
    await putPointers(this.workspaceId, {
      template,
      labels: pending.map((label) => ({ id: this.labelIds.get(label)!, prompt_name: this.name, label })),
    });
    if (template) this.written.add(`T${template.id}`);
    for (const label of pending) this.written.add(`L${label}`);
  }
}

/** The template's mappings as listed, plus the ones this publish attached (the index may lag behind). */
function mergeExternalIds(listed: ExternalId[], attached: ExternalId[]): ExternalId[] {
  return uniqueExternalIds([...listed, ...attached]);
}

import { withBlueprintDefaults } from '#shared/blueprints/schema.ts';
import type { EventActor } from '#shared/events/emit.ts';
import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { forbidden, payloadTooLarge } from '#shared/platform/errors.ts';
import { nextId, prefetchIds } from '#shared/platform/ids.ts';
import { emitPromptEvents, type PromptEvent } from './events.ts';
import { TEMPLATE_MAPPINGS } from './external-ids.ts';
import type { PromptBlueprint } from './llm-kwargs.ts';
import { snippetLoader } from './read.ts';
import { type LabelEntry, labelOf, type TemplateHead, type VersionRecord } from './records.ts';
import {
  createHead,
  getHead,
  type HeadAndLatest,
  type LabelMove,
  putLabelCopy,
  putPointers,
  putVersion,
  readHeadAndLatest,
  storedHeadBytes,
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
 * Everything that can refuse the publish (body, snippets, external ids) is checked before the first
 * write that a client could see. Order of writes (no transactions; each step leaves the registry
 * readable):
 * 1. external ids are claimed with conditional puts; a conflict releases this call's claims and is a
 *    409 before anything else is written;
 * 2. the version item `V#<n+1>` is put with attribute_not_exists (a race loses, re-reads and takes the
 *    next number: versions are 1..N without gaps or duplicates), together with the id pointers of a new
 *    template or new labels (unreferenced until step 3, so harmless if the publish stops here) and the
 *    label copies reads by label use (only trusted once the head names this version);
 * 3. the head is created (first publish: this is what makes the template visible) or updated with one
 *    conditional UpdateItem that sets tags and creates or moves every label (compare-and-set against
 *    the head as read; a lost race re-reads and plans again; a label already on a newer version stays).
 * A first publish that loses the race for version 1 adopts the winner's template id, so concurrent
 * first publishes of one name all become versions of one template; with external ids they already
 * agree on the id in step 1 (see claimExternalIds).
 *
 * Round trips: 1 for the snippet check, the template as it stands and (cold container) the id blocks,
 * together; 1 for the claims, when there are external ids; 1 PutItem (with the pointers and label
 * copies beside it); 1 UpdateItem or PutItem of the head.
 */
const MAX_ATTEMPTS = 100;
/** A version must fit in one item (400 KB) with room for keys and attribute names. */
export const MAX_VERSION_BYTES = 350_000;
/** The head, likewise: its tags and labels map. */
export const MAX_HEAD_BYTES = 300_000;
const LARGEST_LABEL_ENTRY: LabelEntry = {
  id: Number.MAX_SAFE_INTEGER,
  prompt_version_id: Number.MAX_SAFE_INTEGER,
  version_number: Number.MAX_SAFE_INTEGER,
  created_at: Number.MAX_SAFE_INTEGER,
  updated_at: Number.MAX_SAFE_INTEGER,
};

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
  const name = template.prompt_name;
  const labels = [...new Set(body.release_labels ?? [])];
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const blueprint = withBlueprintDefaults(input.prompt_template);

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

  const [, read] = await Promise.all([
    // Every snippet reference must resolve now; a chain that leads back to this template is a cycle.
    resolveSnippets(blueprint as PromptBlueprint, snippetLoader(workspaceId), { selfName: name }),
    readHeadAndLatest(workspaceId, name),
    prefetchIds({ prompt: 1, prompt_version: 1, prompt_label: labels.length }),
  ]);
  let state = read;
  // The API's default: a publish without tags leaves the template with none.
  const tags = template.tags ?? [];
  // The head must take the new labels and tags: refused now rather than after the version is written.
  const plannedLabels = Object.fromEntries(labels.map((label) => [label, LARGEST_LABEL_ENTRY]));
  if (storedHeadBytes({ tags, labels: { ...state.head?.labels, ...plannedLabels } }) > MAX_HEAD_BYTES) {
    throw payloadTooLarge(`A template's tags and labels are at most ${MAX_HEAD_BYTES} bytes as JSON`);
  }
  let templateId = state.head?.id ?? state.latest?.prompt_id ?? (await nextId('prompt'));
  const claim = async (id: number, firstPublish: boolean) =>
    externalIds.length
      ? claimExternalIds(workspaceId, 'prompt_template', id, externalIds, {
          ...TEMPLATE_MAPPINGS,
          ownerName: name,
          // Racing first publishes of this name share the template of whichever claimed first.
          adoptSameName: firstPublish,
        })
      : undefined;
  let claimed = await claim(templateId, !state.head && !state.latest);
  templateId = claimed?.entityId ?? templateId;

  const labelIds = new Map<string, number>();
  const pointers = new PointerWriter(workspaceId, name, labelIds);
  let version: VersionRecord;
  try {
    draft.id = await nextId('prompt_version');
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS)
        throw new Error(`No free version number for ${name} after ${attempt} attempts`);
      const candidate: VersionRecord = {
        ...draft,
        prompt_id: templateId,
        number: (state.latest?.number ?? 0) + 1,
      };
      version = candidate;
      const head = state.head;
      const [won] = await Promise.all([
        putVersion(workspaceId, candidate),
        pointers.write(
          head ? undefined : templateId,
          labels.filter((label) => !head || !labelOf(head, label)),
        ),
        ...labels.map((label) => putLabelCopy(workspaceId, label, candidate, { monotonic: true })),
      ]);
      if (won) break;
      state = await readHeadAndLatest(workspaceId, name);
      const owner = state.head?.id ?? state.latest?.prompt_id;
      if (owner !== undefined && owner !== templateId) {
        // Another first publish of this name won: this one becomes a version of that template.
        await claimed?.release();
        claimed = undefined;
        templateId = owner;
        claimed = await claim(templateId, false);
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
      tags,
      folderId: template.folder_id,
      markExternalIds: externalIds.length > 0,
    }),
    listingExternalIds,
  ]);
  invalidateTemplate(workspaceId, name);

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
      ...outcome.events,
    ],
    actor,
  );
  return toPublishView(
    { id: templateId, name, tags },
    version,
    outcome.applied,
    mergeExternalIds(attached, externalIds),
  );
}

interface HeadPlan {
  labels: string[];
  labelIds: Map<string, number>;
  pointers: PointerWriter;
  tags: string[];
  folderId?: number | null;
  markExternalIds: boolean;
}

interface HeadOutcome {
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
  const labelEvent = (label: string, entry: LabelEntry, previous?: LabelEntry): PromptEvent => {
    const details = {
      prompt_id: version.prompt_id,
      prompt_name: name,
      prompt_label_id: entry.id,
      label,
      ...at,
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
  };
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
        tags: plan.tags,
        folder_id: plan.folderId ?? null,
        created_at: now,
        updated_at: now,
        labels: Object.fromEntries(entries),
        has_external_ids: plan.markExternalIds,
      });
      if (created) {
        return {
          applied: plan.labels,
          events: entries.map(([label, entry]) => labelEvent(label, entry)),
        };
      }
      head = await getHead(workspaceId, name);
      continue;
    }

    // Keyed by client-chosen names: no prototype to assign through.
    const create: Record<string, LabelEntry> = Object.create(null);
    const move: LabelMove[] = [];
    const events: PromptEvent[] = [];
    const applied: string[] = [];
    for (const label of plan.labels) {
      const current = labelOf(head, label);
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
    if (before) return { applied, events };
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

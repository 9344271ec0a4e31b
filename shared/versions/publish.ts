import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { nextId, prefetchIds } from '#shared/platform/ids.ts';
import { entityMappings } from './external-ids.ts';
import { type Head, type LabelEntryBase, labelEntry, labelOf } from './kind.ts';
import { type HeadAndLatest, type LabelMove, storedJsonBytes, type VersionStore } from './store.ts';

/**
 * Publishing a new version of a versioned entity, creating the entity on its first publish.
 *
 * Order of writes (no transactions; each step leaves the entity readable):
 * 1. external ids are claimed with conditional puts; a conflict releases this call's claims and is a
 *    409 before anything else is written;
 * 2. the version item `V#<n+1>` is put with attribute_not_exists (a race loses, re-reads and takes the
 *    next number: versions are 1..N without gaps or duplicates), together with the id pointers of a new
 *    entity or new labels (unreferenced until step 3, so harmless if the publish stops here) and the
 *    label copies reads by label use (only trusted once the head names this version);
 * 3. the head is created (first publish: this is what makes the entity visible) or updated with one
 *    conditional UpdateItem that sets the kind's fields and creates or moves every label
 *    (compare-and-set against the head as read; a lost race re-reads and plans again; a label already
 *    on a newer version stays).
 * A first publish that loses the race for version 1 adopts the winner's entity id, so concurrent first
 * publishes of one name all become versions of one entity; with external ids they already agree on the
 * id in step 1 (see claimExternalIds).
 *
 * Round trips: 1 for the entity as it stands (and, cold, the id blocks); 1 for the claims, when there
 * are external ids; 1 PutItem (with the pointers and label copies beside it); 1 UpdateItem or PutItem
 * of the head.
 */
const MAX_ATTEMPTS = 100;
/** A version must fit in one item (400 KB) with room for keys and attribute names. */
export const MAX_VERSION_BYTES = 350_000;
/** The head, likewise: its fields and labels map. */
export const MAX_HEAD_BYTES = 300_000;

/**
 * At most this many bytes of label copies per publish: 100 labels on a version near MAX_VERSION_BYTES
 * would write 35 MB and outlast the request. Past it, labels get no copy and reads by label read the
 * version the head names (a stale copy is never used, see read.ts copyInStep).
 */
export const MAX_LABEL_COPY_BYTES = 4_000_000;

/** The labels whose copies of `version` a publish writes: all of them, or none when over the budget. */
function copiedLabels<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  labels: string[],
  version: V,
): string[] {
  if (labels.length === 0) return labels;
  const bytes = storedJsonBytes(store.kind.encodeVersion(version));
  return labels.length * bytes <= MAX_LABEL_COPY_BYTES ? labels : [];
}

/** The largest label entry a head may have to hold (for size checks made before writing). */
export function largestLabelEntry<L extends LabelEntryBase>(kind: { versionIdField: keyof L & string }): L {
  const max = Number.MAX_SAFE_INTEGER;
  return labelEntry(kind, { id: max, version_number: max, created_at: max, updated_at: max }, max);
}

export interface PublishPlan<V, X> {
  name: string;
  /** Release labels to put on the new version, without repeats. */
  labels: string[];
  /** Mappings to claim for the entity, without repeats. */
  externalIds: ExternalId[];
  /** The version at its place (`id` is the new version's id); its created_at is the publish's time. */
  build(place: { id: number; entityId: number; number: number }): V;
  /** The kind's fields of a head this publish creates. */
  newHead: X;
  /** The kind's fields this publish sets on an existing head (undefined ones are left alone). */
  headUpdate: Partial<X>;
  /** Called after each write readers may cache (the version, the head). */
  changed?(): void;
}

/** A label this publish created (no `previous`) or moved onto the new version. */
export interface LabelChange<L> {
  label: string;
  entry: L;
  previous?: L;
}

export interface Published<V, L> {
  entityId: number;
  version: V;
  /** The labels now on the new version. */
  applied: string[];
  labelChanges: LabelChange<L>[];
  /** The entity's mappings, this publish's included. */
  externalIds: ExternalId[];
}

/** The state a publish starts from, read with the id blocks it will need. */
export async function readForPublish<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  name: string,
  labelCount: number,
): Promise<HeadAndLatest<Head<L, X>, V>> {
  const { ids } = store.kind;
  const [state] = await Promise.all([
    store.readHeadAndLatest(workspaceId, name),
    prefetchIds({ [ids.entity]: 1, [ids.version]: 1, [ids.label]: labelCount }),
  ]);
  return state;
}

export async function publishVersion<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  read: HeadAndLatest<Head<L, X>, V>,
  plan: PublishPlan<V, X>,
): Promise<Published<V, L>> {
  const { kind } = store;
  const { name, labels, externalIds } = plan;
  let state = read;
  const numberAfter = (current: HeadAndLatest<Head<L, X>, V>) =>
    (current.latest ? kind.placeOf(current.latest).number : 0) + 1;

  const mappings = entityMappings(store);
  let entityId =
    state.head?.id ??
    (state.latest && kind.placeOf(state.latest).entityId) ??
    (await nextId(kind.ids.entity));
  const claim = async (id: number, firstPublish: boolean) =>
    externalIds.length
      ? claimExternalIds(workspaceId, kind.externalIdEntity, id, externalIds, {
          ...mappings,
          ownerName: name,
          // Racing first publishes of this name share the entity of whichever claimed first.
          adoptSameName: firstPublish,
        })
      : undefined;
  let claimed = await claim(entityId, !state.head && !state.latest);
  entityId = claimed?.entityId ?? entityId;

  const pointers = new PointerWriter(store, workspaceId, name);
  let version: V;
  try {
    const versionId = await nextId(kind.ids.version);
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS)
        throw new Error(`No free version number for ${name} after ${attempt} attempts`);
      const candidate = plan.build({ id: versionId, entityId, number: numberAfter(state) });
      version = candidate;
      const head = state.head;
      const copied = copiedLabels(store, labels, candidate);
      const [won] = await Promise.all([
        store.putVersion(workspaceId, candidate),
        pointers.write(
          head ? undefined : entityId,
          labels.filter((label) => !head || !labelOf(head, label)),
        ),
        ...copied.map((label) => store.putLabelCopy(workspaceId, label, candidate, { monotonic: true })),
      ]);
      if (won) break;
      state = await store.readHeadAndLatest(workspaceId, name);
      const owner = state.head?.id ?? (state.latest && kind.placeOf(state.latest).entityId);
      if (owner !== undefined && owner !== entityId) {
        // Another first publish of this name won: this one becomes a version of that entity.
        await claimed?.release();
        claimed = undefined;
        entityId = owner;
        claimed = await claim(entityId, false);
      }
    }
  } catch (error) {
    await claimed?.release();
    throw error;
  }
  plan.changed?.();

  const listingExternalIds =
    state.head?.has_external_ids || externalIds.length
      ? listExternalIds(workspaceId, kind.externalIdEntity, entityId)
      : Promise.resolve([]);
  const [outcome, attached] = await Promise.all([
    writeHead(store, workspaceId, state.head, version, plan, pointers),
    listingExternalIds,
  ]);
  plan.changed?.();
  return {
    entityId,
    version,
    ...outcome,
    // The index may lag behind the mappings this publish attached.
    externalIds: uniqueExternalIds([...attached, ...externalIds]),
  };
}

/** Step 3: creates or updates the head, re-reading and planning again whenever a race is lost. */
async function writeHead<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  known: Head<L, X> | undefined,
  version: V,
  plan: PublishPlan<V, X>,
  pointers: PointerWriter<V, L, X>,
): Promise<{ applied: string[]; labelChanges: LabelChange<L>[] }> {
  const { kind } = store;
  const place = kind.placeOf(version);
  const now = place.created_at;
  const name = place.name;
  const markExternalIds = plan.externalIds.length > 0;
  const at = { versionId: place.id, version_number: place.number };
  const newEntry = async (label: string): Promise<L> => {
    const [id] = await pointers.write(undefined, [label]);
    return labelEntry(
      kind,
      { id: id!, version_number: place.number, created_at: now, updated_at: now },
      place.id,
    );
  };

  let head = known;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!head) {
      const entries = await Promise.all(
        plan.labels.map(async (label) => [label, await newEntry(label)] as const),
      );
      const created = await store.createHead(workspaceId, {
        ...plan.newHead,
        id: place.entityId,
        name,
        created_at: now,
        updated_at: now,
        labels: Object.fromEntries(entries),
        has_external_ids: markExternalIds,
      } as Head<L, X>);
      if (created) {
        return { applied: plan.labels, labelChanges: entries.map(([label, entry]) => ({ label, entry })) };
      }
      head = await store.getHead(workspaceId, name);
      continue;
    }

    // Keyed by client-chosen names: no prototype to assign through.
    const create: Record<string, L> = Object.create(null);
    const move: LabelMove[] = [];
    const labelChanges: LabelChange<L>[] = [];
    const applied: string[] = [];
    for (const label of plan.labels) {
      const current = labelOf(head, label);
      // A newer version (a concurrent publish) already took the label: it stays there.
      if (current && current.version_number > place.number) continue;
      applied.push(label);
      if (current?.version_number === place.number) continue;
      if (current) {
        move.push({ name: label, id: current.id, fromVersion: current.version_number, ...at });
        labelChanges.push({
          label,
          entry: labelEntry(kind, { ...current, version_number: place.number }, place.id),
          previous: current,
        });
      } else {
        create[label] = await newEntry(label);
        labelChanges.push({ label, entry: create[label] });
      }
    }
    const before = await store.updateHead(workspaceId, name, {
      updatedAt: now,
      set: plan.headUpdate,
      markExternalIds,
      create,
      move,
    });
    if (before) return { applied, labelChanges };
    head = await store.getHead(workspaceId, name);
  }
  throw new Error(`Could not update the head of ${name} after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Writes id pointers before anything references them: the entity's (when creating it) and each new
 * label's, allocating label ids on first need. Each pointer is written once per publish.
 */
class PointerWriter<V, L extends LabelEntryBase, X> {
  private readonly store: VersionStore<V, L, X>;
  private readonly workspaceId: number;
  private readonly name: string;
  private readonly written = new Set<string>();
  private readonly labelIds = new Map<string, number>();

  constructor(store: VersionStore<V, L, X>, workspaceId: number, name: string) {
    this.store = store;
    this.workspaceId = workspaceId;
    this.name = name;
  }

  /** Answers the ids of `labels`. */
  async write(entityId: number | undefined, labels: string[]): Promise<number[]> {
    const entity =
      entityId !== undefined && !this.written.has(`T${entityId}`)
        ? { id: entityId, name: this.name }
        : undefined;
    const fresh = labels.filter((label) => !this.labelIds.has(label));
    for (const label of fresh) this.labelIds.set(label, await nextId(this.store.kind.ids.label));
    const pending = labels.filter((label) => !this.written.has(`L${label}`));
    if (entity || pending.length) {
      await this.store.putPointers(this.workspaceId, {
        entity,
        labels: pending.map((label) => ({ id: this.labelIds.get(label)!, name: this.name, label })),
      });
      if (entity) this.written.add(`T${entity.id}`);
      for (const label of pending) this.written.add(`L${label}`);
    }
    return labels.map((label) => this.labelIds.get(label)!);
  }
}

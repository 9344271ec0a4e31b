import { notFound } from '#shared/platform/errors.ts';
import { CANONICAL_ID } from '#shared/platform/schemas.ts';
import { type Head, type LabelEntryBase, labelOf, labelVersionId } from './kind.ts';
import type { VersionStore } from './store.ts';

/**
 * Reading a version of an entity, picked by number, label or "latest", by name or id. Round trips: the
 * latest by name, one Query; a pinned version or a label, one BatchGetItem (the head with the version,
 * or with the label's copy of its version); by id, one GetItem for the id's name first, once per
 * container.
 */

export interface Selector {
  version?: number;
  label?: string;
}

export interface Found<H, V> {
  head: H;
  version: V;
}

export type Lookup<H, V> =
  | { found: Found<H, V> }
  | { missing: 'entity' }
  | { missing: 'version' | 'label'; head: H };

/** Reads by entity name. */
export async function lookupByName<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  name: string,
  select: Selector,
): Promise<Lookup<Head<L, X>, V>> {
  if (select.version !== undefined) {
    const items = await store.getItems(workspaceId, {
      heads: [name],
      versions: [{ name, number: select.version }],
    });
    const head = items.head(name);
    const version = items.version(name, select.version);
    if (!head) return { missing: 'entity' };
    return version ? { found: { head, version } } : { missing: 'version', head };
  }
  if (select.label !== undefined) {
    const { label } = select;
    const items = await store.getItems(workspaceId, { heads: [name], labelCopies: [{ name, label }] });
    const head = items.head(name);
    if (!head) return { missing: 'entity' };
    const entry = labelOf(head, label);
    if (!entry) return { missing: 'label', head };
    const version =
      copyInStep(store, entry, items.labelCopy(name, label)) ??
      (await store.getVersion(workspaceId, name, entry.version_number));
    return version ? { found: { head, version } } : { missing: 'label', head };
  }
  const { head, latest } = await store.readHeadAndLatest(workspaceId, name);
  // A version without a head is a first publish not finished (or interrupted): not there yet.
  if (!head || !latest) return { missing: 'entity' };
  return { found: { head, version: latest } };
}

/**
 * The label's copy when it is of the version the head names. Otherwise (racing moves, a move that
 * stopped halfway, a label set before copies existed) the caller reads that version itself.
 */
export function copyInStep<V, L extends LabelEntryBase, X>(
  store: Pick<VersionStore<V, L, X>, 'kind'>,
  entry: L,
  copy: V | undefined,
): V | undefined {
  return copy && store.kind.placeOf(copy).id === labelVersionId(store.kind, entry) ? copy : undefined;
}

/** The identifier as an entity id, when it is one's canonical form (digits, no leading zero: "007" is a name). */
export function asEntityId(identifier: string): number | undefined {
  const id = CANONICAL_ID.test(identifier) ? Number(identifier) : undefined;
  return id !== undefined && id > 0 && Number.isSafeInteger(id) ? id : undefined;
}

/**
 * Looks an entity up by name or by id. An identifier of digits is first read as an id of the
 * workspace, then as a name (an entity may be called "42").
 */
export async function lookup<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  identifier: string,
  select: Selector,
): Promise<Lookup<Head<L, X>, V>> {
  const id = asEntityId(identifier);
  if (id !== undefined) {
    const name = await store.getName(workspaceId, id);
    if (name !== undefined) {
      const byId = await lookupByName(store, workspaceId, name, select);
      // A pointer left by a publish that lost the race to create the entity points at another id.
      if ('found' in byId ? byId.found.head.id === id : 'head' in byId && byId.head.id === id) return byId;
    }
  }
  return lookupByName(store, workspaceId, identifier, select);
}

/** The selected version, or a 404 naming what is missing. */
export async function readVersion<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  identifier: string,
  select: Selector,
): Promise<Found<Head<L, X>, V>> {
  const result = await lookup(store, workspaceId, identifier, select);
  if ('found' in result) return result.found;
  const { noun } = store.kind;
  switch (result.missing) {
    case 'entity':
      throw notFound(`${noun} ${identifier} not found`);
    case 'version':
      throw notFound(`Version ${select.version} of ${noun.toLowerCase()} ${result.head.name} not found`);
    case 'label':
      throw notFound(`Label ${select.label} of ${noun.toLowerCase()} ${result.head.name} not found`);
  }
}

/**
 * The head of an entity by name or id (an identifier of digits is tried as an id first). A head exists
 * only once its first version does, so a head found is an entity a client may see.
 */
export async function findHead<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  identifier: string,
): Promise<Head<L, X> | undefined> {
  const id = asEntityId(identifier);
  if (id !== undefined) {
    const byId = await findHeadById(store, workspaceId, id);
    if (byId) return byId;
  }
  return store.getHead(workspaceId, identifier);
}

export async function findHeadById<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  entityId: number,
): Promise<Head<L, X> | undefined> {
  if (!Number.isSafeInteger(entityId) || entityId <= 0) return undefined;
  const name = await store.getName(workspaceId, entityId);
  const head = name === undefined ? undefined : await store.getHead(workspaceId, name);
  return head?.id === entityId ? head : undefined;
}

import { randomUUID } from 'node:crypto';
import {
  type ExternalId,
  externalIdConflict,
  findExternalIdOwner,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { requireFolder } from '#shared/folders/require.ts';
import type { AuthContext } from '#shared/platform/auth-context.ts';
import { badRequest, clip, conflict, invalid, payloadTooLarge } from '#shared/platform/errors.ts';
import {
  largestLabelEntry,
  MAX_HEAD_BYTES,
  type Published,
  publishVersion,
  readForPublish,
} from '#shared/versions/publish.ts';
import { type HeadAndLatest, storedJsonBytes } from '#shared/versions/store.ts';
import { digestFiles, loadManifest, readFiles, storeFiles, storeManifest } from './blobs.ts';
import {
  type Manifest,
  SKILL_KIND,
  type SkillHead,
  type SkillHeadFields,
  type SkillLabelEntry,
  type SkillVersionRecord,
  skillStore,
} from './collection.ts';
import { changesNothing, diffManifests, emitFilesChanged, type FileChanges } from './events.ts';
import { checkSkillFiles, type SkillFile } from './files.ts';
import { claimName, nameInUse, nameTaken, releaseName } from './names.ts';
import { normaliseSkillPath } from './paths.ts';
import { collectionNotFound, requireCollection } from './read.ts';
import type { CreateCollectionBody, RenameBody, SaveVersionBody } from './schemas.ts';
import { toCollection, toVersion } from './views.ts';

/**
 * Creating skill collections, their versions and renames. Versions and labels are the shared module's
 * (shared/versions/publish.ts): dense numbers, labels moved by compare-and-set, external ids claimed
 * before anything else. Order of a create or a version, so that a crash never leaves a half record:
 * every check (files, name, external ids) is made before writing; then the file contents go to S3 (a
 * crash here leaves only unreferenced objects), then the name pointer (create), then the version, then
 * the head that makes it visible.
 */

interface CollectionPublish {
  collectionId: string;
  state: HeadAndLatest<SkillHead, SkillVersionRecord>;
  /** The version this one must follow (0 for a create): a concurrent version is a 409, not a lost update. */
  after: number;
  manifest: Manifest;
  commitMessage: string | null;
  labels: string[];
  externalIds: ExternalId[];
  newHead: SkillHeadFields;
  headUpdate: Partial<SkillHeadFields>;
}

async function publishCollection(
  workspaceId: number,
  auth: AuthContext,
  input: CollectionPublish,
): Promise<Published<SkillVersionRecord, SkillLabelEntry>> {
  const { state, labels, collectionId } = input;
  const plannedLabels = {
    ...state.head?.labels,
    ...Object.fromEntries(labels.map((label) => [label, largestLabelEntry(SKILL_KIND)])),
  };
  if (storedJsonBytes(plannedLabels) > MAX_HEAD_BYTES) {
    throw payloadTooLarge(`A skill collection's labels are at most ${MAX_HEAD_BYTES} bytes as JSON`);
  }
  const uuid = randomUUID();
  const manifest = await storeManifest(workspaceId, uuid, input.manifest);
  const createdAt = Date.now();
  const head = input.state.head ?? input.newHead;
  return publishVersion(skillStore, workspaceId, state, {
    name: collectionId,
    labels,
    externalIds: input.externalIds,
    build: ({ id, entityId, number }) => {
      if (number !== input.after + 1) {
        throw conflict(
          `Skill collection ${head.collection_name} changed while this version was made (it is at version ${number - 1} now); read it and try again`,
        );
      }
      return {
        id,
        uuid,
        collection_id: collectionId,
        entity_id: entityId,
        number,
        commit_message: input.commitMessage,
        // A version's provider, when it sets one, is the collection's from then on.
        provider: input.headUpdate.provider !== undefined ? input.headUpdate.provider : head.provider,
        root_path: head.root_path,
        manifest,
        file_paths: Object.keys(input.manifest),
        created_by: auth.userId,
        user_email: auth.userEmail,
        created_at: createdAt,
      };
    },
    newHead: input.newHead,
    headUpdate: input.headUpdate,
  });
}

/** A 409 before anything is written when a mapping already belongs to another collection. */
async function checkExternalIdsFree(workspaceId: number, externalIds: ExternalId[]): Promise<void> {
  const owners = await Promise.all(
    externalIds.map((mapping) => findExternalIdOwner(workspaceId, 'skill_collection', mapping)),
  );
  const taken = owners.findIndex((owner) => owner !== undefined);
  if (taken >= 0) throw externalIdConflict('skill_collection', externalIds[taken]!);
}

/** POST /api/public/v2/skill-collections: a new collection at version 1 with its files. */
export async function createCollection(auth: AuthContext, body: CreateCollectionBody) {
  const { workspaceId } = auth;
  const files = checkSkillFiles(body.files);
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const [taken] = await Promise.all([
    nameInUse(workspaceId, body.name),
    checkExternalIdsFree(workspaceId, externalIds),
    // The folder it is filed under must be one of the workspace's (404).
    requireFolder(workspaceId, body.folder_id),
  ]);
  if (taken) throw nameTaken(body.name);

  const collectionId = randomUUID();
  const state = await readForPublish(skillStore, workspaceId, collectionId, 0);
  const manifest = await storeFiles(workspaceId, files);
  await claimName(workspaceId, body.name, collectionId);
  const newHead: SkillHeadFields = {
    collection_name: body.name,
    root_path: body.name,
    provider: body.provider ?? null,
    folder_id: body.folder_id ?? null,
    is_deleted: false,
    created_by: auth.userId,
    updated_by: auth.userId,
    user_email: auth.userEmail,
  };
  let published: Published<SkillVersionRecord, SkillLabelEntry>;
  try {
    published = await publishCollection(workspaceId, auth, {
      collectionId,
      state,
      after: 0,
      manifest,
      commitMessage: body.commit_message ?? null,
      labels: [],
      externalIds,
      newHead,
      headUpdate: {},
    });
  } catch (error) {
    await releaseName(workspaceId, body.name, collectionId);
    throw error;
  }
  const { version } = published;
  const head: SkillHead = {
    ...newHead,
    id: published.entityId,
    name: collectionId,
    created_at: version.created_at,
    updated_at: version.created_at,
    labels: {},
    has_external_ids: externalIds.length > 0,
  };
  await emitFilesChanged(
    workspaceId,
    {
      collectionId,
      name: body.name,
      versionNumber: version.number,
      changes: diffManifests({}, manifest),
    },
    auth,
  );
  return {
    success: true as const,
    skill_collection: toCollection(workspaceId, head, version.number, published.externalIds),
    version: toVersion(workspaceId, version, head),
    external_ids: published.externalIds,
  };
}

/**
 * The files after the body's moves, deletes and updates (in that order), every path named as it is
 * stored (normalised): a 422 naming a path to move or delete that is not there, or a move onto a file
 * that is (its content would be lost); a 400 for a path updated twice.
 */
function applyChanges(current: readonly SkillFile[], body: SaveVersionBody): SkillFile[] {
  const files = new Map(current.map((file) => [file.path, file.content]));
  const missing = (path: string, loc: (string | number)[]) =>
    invalid(['body', ...loc], `${path} is not a file of the collection`);
  body.moves.forEach(({ old_path, new_path }, index) => {
    const from = normaliseSkillPath(old_path);
    const to = normaliseSkillPath(new_path);
    if (!files.has(from)) throw missing(old_path, ['moves', index, 'old_path']);
    if (to === from) return;
    if (files.has(to))
      throw invalid(
        ['body', 'moves', index, 'new_path'],
        `${new_path} is already a file of the collection (a move does not replace a file)`,
      );
    files.set(to, files.get(from)!);
    files.delete(from);
  });
  body.deletes.forEach((path, index) => {
    if (!files.delete(normaliseSkillPath(path))) throw missing(path, ['deletes', index]);
  });
  const updated = new Set<string>();
  for (const { path: given, content } of body.file_updates) {
    const path = normaliseSkillPath(given);
    if (updated.has(path))
      throw badRequest(`File path "${clip(path, 200)}" is updated twice`, 'duplicate_file_path');
    updated.add(path);
    files.set(path, content);
  }
  return [...files].map(([path, content]) => ({ path, content }));
}

/**
 * POST /api/public/v2/skill-collections/{identifier}/versions: the next version, from the latest one
 * and the body's moves, deletes and file updates; the result is checked whole. A body that changes no
 * file, names no release label or commit message and keeps the provider is a 400 (nothing is written).
 */
export async function saveCollectionVersion(auth: AuthContext, identifier: string, body: SaveVersionBody) {
  const { workspaceId } = auth;
  const known = await requireCollection(workspaceId, identifier);
  const labels = body.release_label ? [body.release_label] : [];
  const state = await readForPublish(skillStore, workspaceId, known.name, labels.length);
  if (!state.head || !state.latest) throw collectionNotFound(identifier);
  const before = await loadManifest(state.latest);
  const files = checkSkillFiles(applyChanges(await readFiles(before), body));
  const changes: FileChanges = diffManifests(before, digestFiles(files));
  const provider =
    body.provider !== undefined && body.provider !== state.head.provider ? body.provider : undefined;
  // A version that keeps the files still means something when it names a release label, a commit
  // message or a new provider (the PromptLayer SDK's update sends any of them alone); with none: a 400.
  const marksRelease = labels.length > 0 || Boolean(body.commit_message);
  if (changesNothing(changes) && provider === undefined && !marksRelease) {
    throw badRequest('The version changes no file', 'no_changes');
  }

  const manifest = await storeFiles(workspaceId, files, before);
  const published = await publishCollection(workspaceId, auth, {
    collectionId: known.name,
    state,
    after: state.latest.number,
    manifest,
    commitMessage: body.commit_message ?? null,
    labels,
    externalIds: [],
    newHead: state.head,
    headUpdate: { updated_by: auth.userId, ...(provider !== undefined && { provider }) },
  });
  // The labels this version carries are the ones the publish created or moved onto it.
  const versionHead = {
    labels: Object.fromEntries(published.labelChanges.map(({ label, entry }) => [label, entry])),
  };
  if (!changesNothing(changes)) {
    await emitFilesChanged(
      workspaceId,
      {
        collectionId: known.name,
        name: state.head.collection_name,
        versionNumber: published.version.number,
        changes,
      },
      auth,
    );
  }
  // The collection as the version left it (its provider, updated_at), read back once.
  const head = (await skillStore.getHead(workspaceId, known.name)) ?? state.head;
  return {
    success: true as const,
    skill_collection: await collectionView(workspaceId, head, published.version.number),
    version: toVersion(workspaceId, published.version, versionHead),
  };
}

/** A collection's answer: its head, the latest version's number and its external ids (when it has any). */
async function collectionView(workspaceId: number, head: SkillHead, latest: number | Promise<number>) {
  const [latestNumber, externalIds] = await Promise.all([
    latest,
    head.has_external_ids ? listExternalIds(workspaceId, 'skill_collection', head.id) : [],
  ]);
  return toCollection(workspaceId, head, latestNumber, externalIds);
}

/** PATCH /api/public/v2/skill-collections/{identifier}: a new name (409 when taken); no name, no change. */
export async function renameCollection(auth: AuthContext, identifier: string, body: RenameBody) {
  const { workspaceId } = auth;
  let head = await requireCollection(workspaceId, identifier);
  const name = body.name;
  if (name != null && name !== head.collection_name) {
    const oldName = head.collection_name;
    await claimName(workspaceId, name, head.name);
    const now = Date.now();
    const set = { collection_name: name, root_path: name, updated_by: auth.userId };
    const before = await skillStore.updateHead(workspaceId, head.name, { updatedAt: now, set });
    if (!before) {
      await releaseName(workspaceId, name, head.name);
      throw collectionNotFound(identifier);
    }
    await releaseName(workspaceId, oldName, head.name);
    head = { ...before, ...set, updated_at: now };
  }
  const latest = skillStore.getLatestVersion(workspaceId, head.name).then((version) => version?.number ?? 1);
  return { success: true as const, skill_collection: await collectionView(workspaceId, head, latest) };
}

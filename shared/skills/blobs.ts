import { createHash } from 'node:crypto';
import { getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { loadJson, storeJson } from '#shared/platform/stored-json.ts';
import type { Manifest, SkillVersionRecord } from './collection.ts';
import type { SkillFile } from './files.ts';

/**
 * File contents of skill collections in S3, content-addressed per workspace: `skills/<ws>/<sha256>`
 * holds the UTF-8 bytes of every file with that hash, so a version that leaves a file unchanged (or
 * only moves it) writes nothing for it. Objects are never overwritten with other bytes and never
 * deleted by a version: an older version keeps reading its files.
 */
const PARALLEL_WRITES = 32;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const blobKey = (workspaceId: number, hash: string) => `skills/${workspaceId}/${hash}`;
const manifestKey = (workspaceId: number, versionUuid: string) =>
  `skills/${workspaceId}/manifests/${versionUuid}.json`;

/** The manifest of `files` (whose paths are already checked and sorted). */
export function manifestOf(workspaceId: number, files: readonly SkillFile[]): Manifest {
  const manifest: Manifest = Object.create(null);
  for (const file of files) {
    const hash = sha256(file.content);
    manifest[file.path] = {
      size: Buffer.byteLength(file.content, 'utf8'),
      sha256: hash,
      key: blobKey(workspaceId, hash),
    };
  }
  return manifest;
}

/** Writes the contents the previous manifest does not already hold. */
export async function writeBlobs(
  files: readonly SkillFile[],
  manifest: Manifest,
  previous: Manifest = {},
): Promise<void> {
  const stored = new Set(Object.values(previous).map((entry) => entry.key));
  const pending = new Map<string, string>();
  for (const file of files) {
    const { key } = manifest[file.path]!;
    if (!stored.has(key)) pending.set(key, file.content);
  }
  await forEachLimited([...pending], PARALLEL_WRITES, ([key, content]) =>
    putObject(key, content, 'text/plain; charset=utf-8'),
  );
}

/** The manifest as a version stores it (inline while small, else its own S3 object). */
export const storeManifest = (workspaceId: number, versionUuid: string, manifest: Manifest) =>
  storeJson(manifestKey(workspaceId, versionUuid), manifest);

export async function loadManifest(version: SkillVersionRecord): Promise<Manifest> {
  const loaded = (await loadJson(version.manifest)) as Manifest | null;
  return Object.assign(Object.create(null), loaded ?? {});
}

/** The files of a manifest with their contents, sorted by path. */
export async function readFiles(manifest: Manifest): Promise<SkillFile[]> {
  const paths = Object.keys(manifest).sort();
  const contents = new Map<string, string>();
  const keys = [...new Set(paths.map((path) => manifest[path]!.key))];
  await forEachLimited(keys, PARALLEL_WRITES, async (key) => {
    contents.set(key, await getObjectText(key));
  });
  return paths.map((path) => ({ path, content: contents.get(manifest[path]!.key)! }));
}

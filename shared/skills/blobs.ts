import { createHash } from 'node:crypto';
import { getObjectStream, putObject } from '#shared/platform/blob-store.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { loadJson, storeJson } from '#shared/platform/stored-json.ts';
import type { FileDigest, Manifest, SkillVersionRecord } from './collection.ts';
import type { SkillFile } from './files.ts';

/**
 * File contents of skill collections in S3, in **packs**: a version writes the contents its predecessor
 * does not already hold, concatenated, as one object named by the sha256 of its bytes,
 * `skills/<ws>/packs/<sha256>` (content-addressed per workspace: the same new contents make the same
 * object). Its manifest maps each path to its size, sha256, pack and offset; an unchanged (or only moved)
 * file keeps the entry of the version before, so it is never written again. One PUT per version, however
 * many files it has, and one ranged GET per pack a read needs. Packs are never overwritten with other
 * bytes nor deleted by a version: an older version keeps reading its files.
 */
const PARALLEL_READS = 16;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const packKey = (workspaceId: number, hash: string) => `skills/${workspaceId}/packs/${hash}`;
const manifestKey = (workspaceId: number, versionUuid: string) =>
  `skills/${workspaceId}/manifests/${versionUuid}.json`;

/** Each path's size and sha256 (paths already checked and sorted). */
export function digestFiles(files: readonly SkillFile[]): Record<string, FileDigest> {
  return Object.fromEntries(
    files.map((file) => [
      file.path,
      { size: Buffer.byteLength(file.content, 'utf8'), sha256: sha256(file.content) },
    ]),
  );
}

/**
 * Writes the contents `previous` does not hold as one pack and answers the new manifest: entries of
 * `previous` for the contents it has (whatever their path), the new pack's for the others.
 */
export async function storeFiles(
  workspaceId: number,
  files: readonly SkillFile[],
  previous: Manifest = {},
): Promise<Manifest> {
  const known = new Map(Object.values(previous).map((entry) => [entry.sha256, entry]));
  const packed = new Map<string, { offset: number; size: number }>();
  const chunks: Buffer[] = [];
  let offset = 0;
  const located: { path: string; sha: string; size: number }[] = [];
  for (const file of files) {
    const bytes = Buffer.from(file.content, 'utf8');
    const sha = sha256(bytes);
    located.push({ path: file.path, sha, size: bytes.length });
    if (known.has(sha) || packed.has(sha)) continue;
    packed.set(sha, { offset, size: bytes.length });
    chunks.push(bytes);
    offset += bytes.length;
  }
  const pack = Buffer.concat(chunks);
  const key = packKey(workspaceId, sha256(pack));
  if (packed.size) await putObject(key, pack, 'application/octet-stream');
  const manifest: Manifest = Object.create(null);
  for (const { path, sha, size } of located) {
    manifest[path] = known.get(sha) ?? { size, sha256: sha, key, offset: packed.get(sha)!.offset };
  }
  return manifest;
}

/** The manifest as a version stores it (inline while small, else its own S3 object). */
export const storeManifest = (workspaceId: number, versionUuid: string, manifest: Manifest) =>
  storeJson(manifestKey(workspaceId, versionUuid), manifest);

export async function loadManifest(version: SkillVersionRecord): Promise<Manifest> {
  const loaded = (await loadJson(version.manifest)) as Manifest | null;
  return Object.assign(Object.create(null), loaded ?? {});
}

/** The files of a manifest with their contents, sorted by path: one ranged GET per pack. */
export async function readFiles(manifest: Manifest): Promise<SkillFile[]> {
  const paths = Object.keys(manifest).sort();
  const spans = new Map<string, { start: number; end: number }>();
  for (const { key, offset, size } of Object.values(manifest)) {
    const span = spans.get(key);
    spans.set(key, {
      start: Math.min(span?.start ?? offset, offset),
      end: Math.max(span?.end ?? offset + size, offset + size),
    });
  }
  const bytes = new Map<string, { start: number; data: Buffer }>();
  await forEachLimited([...spans], PARALLEL_READS, async ([key, span]) => {
    // An empty span (only empty files) needs no read.
    if (span.end === span.start) return void bytes.set(key, { start: span.start, data: Buffer.alloc(0) });
    const chunks: Uint8Array[] = [];
    for await (const chunk of await getObjectStream(key, { range: { start: span.start, end: span.end - 1 } }))
      chunks.push(chunk);
    bytes.set(key, { start: span.start, data: Buffer.concat(chunks) });
  });
  return paths.map((path) => {
    const { key, offset, size } = manifest[path]!;
    const { start, data } = bytes.get(key)!;
    return { path, content: data.toString('utf8', offset - start, offset - start + size) };
  });
}

import { isUtf8 } from 'node:buffer';
import { crc32 } from 'node:zlib';
import type yauzl from 'yauzl';
import { type AppError, badRequest, clip, payloadTooLarge } from '#shared/platform/errors.ts';
import { onDemand } from '#shared/platform/on-demand.ts';
import type { SkillFile } from './files.ts';
import { isSkillFile } from './front-matter.ts';
import { SKILL_FILE_LIMITS } from './limits.ts';
import { normaliseSkillPath, parentFolder, SKILL_ARCHIVE_COMMENT } from './paths.ts';

/**
 * Skill collections as ZIP archives. Reading is the hostile side: yauzl (central directory first, entry
 * names validated, sizes checked against what inflates) with our limits on top, stopping at the first
 * violation; nothing of a refused archive is returned.
 */

/**
 * yauzl (CommonJS, 23 KB minified) is imported on the first ZIP a container reads: it is external to the
 * bundles and copied beside those that name it (ON_DEMAND_PACKAGES in infra/bundling.ts), so the skill
 * routes that take a ZIP load it only for multipart requests.
 */
export const ZIP_READER_PACKAGE = 'yauzl';
// `default`: the CommonJS module's exports, as Node hands them to an `import()`.
const loadZipReader = onDemand(async () => (await import('yauzl')).default);

/** Top folders of PromptLayer's per-tool exports (Claude Code, Codex/universal, OpenClaw). */
export const PROVIDER_EXPORT_PREFIXES = ['.claude', '.agents', '.openclaw'] as const;

const SYMLINK = 0o120000;
const FILE_TYPE_MASK = 0o170000;
/** General purpose bit 11: the entry's name is UTF-8 (else CP437, which any byte decodes). */
const UTF8_NAME_FLAG = 0x800;

interface Entry {
  path: string;
  content: string;
}

/**
 * Reads a ZIP into files (UTF-8 text only), refusing: a corrupt archive, a zip-slip or absolute name, a
 * symbolic link, an encrypted entry, a CRC-32 mismatch, a file that is not UTF-8 (400); more than 100
 * files or 1000 entries of any kind, a file over 5 MiB declared or actual, more than 20 MiB in all, a
 * ratio above 100:1 (413). Directory entries are skipped, `__MACOSX/` and `.DS_Store` dropped; then one
 * common top folder that is not itself a skill (no SKILL.md directly in it) and a provider export prefix
 * (`.claude/`, `.agents/`, `.openclaw/`) are stripped, unless the archive is one `format=zip` wrote
 * (SKILL_ARCHIVE_COMMENT: its paths are from the collection root already). Paths come back normalised by the path rules; the
 * caller runs checkSkillFiles on the collection's files (front matter, totals), as for JSON.
 */
export async function readSkillArchive(zip: Buffer): Promise<SkillFile[]> {
  const { fromBuffer } = await loadZipReader();
  const zipfile = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    fromBuffer(
      zip,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true },
      (error, opened) => (error ? reject(invalidArchive(error)) : resolve(opened)),
    );
  });
  if (zipfile.entryCount > SKILL_FILE_LIMITS.maxArchiveEntries) {
    zipfile.close();
    throw payloadTooLarge(
      `The archive lists ${zipfile.entryCount} entries; it may list at most ${SKILL_FILE_LIMITS.maxArchiveEntries}`,
    );
  }
  const ours = zipfile.comment === SKILL_ARCHIVE_COMMENT;
  const entries = await readEntries(zipfile);
  const files = entries.map((entry) => ({ path: normaliseSkillPath(entry.path), content: entry.content }));
  return ours ? files : stripCommonFolders(files);
}

function invalidArchive(error: Error): AppError {
  return badRequest(`Invalid ZIP archive: ${clip(error.message, 300)}`, 'invalid_archive');
}

/** Every kept entry's text, one entry at a time; the first violation rejects and stops reading. */
function readEntries(zipfile: yauzl.ZipFile): Promise<Entry[]> {
  return new Promise<Entry[]>((resolve, reject) => {
    const files: Entry[] = [];
    const names = new Set<string>();
    let total = 0;
    let done = false;
    const stop = (error: AppError) => {
      if (done) return;
      done = true;
      zipfile.close();
      reject(error);
    };
    zipfile.on('error', (error: Error) => stop(invalidArchive(error)));
    zipfile.on('end', () => {
      if (done) return;
      done = true;
      resolve(files);
    });
    zipfile.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName;
      const quoted = `"${clip(name, 200)}"`;
      // yauzl decodes a name flagged UTF-8 with replacement characters where its bytes are not UTF-8.
      if ((entry.generalPurposeBitFlag & UTF8_NAME_FLAG) !== 0 && !isUtf8(entry.fileNameRaw))
        return stop(
          badRequest(
            `Invalid file path ${quoted}: its bytes are not valid UTF-8 (0x${clip(entry.fileNameRaw.toString('hex'), 200)})`,
            'invalid_file_path',
          ),
        );
      if (name.endsWith('/') || isJunk(name)) return zipfile.readEntry();
      if (((entry.externalFileAttributes >>> 16) & FILE_TYPE_MASK) === SYMLINK)
        return stop(badRequest(`Archive entry ${quoted} is a symbolic link`, 'invalid_archive'));
      if (entry.isEncrypted())
        return stop(badRequest(`Archive entry ${quoted} is encrypted`, 'invalid_archive'));
      if (files.length === SKILL_FILE_LIMITS.maxFiles)
        return stop(payloadTooLarge(`The archive holds more than ${SKILL_FILE_LIMITS.maxFiles} files`));
      if (names.has(name))
        return stop(badRequest(`Archive entry ${quoted} appears twice`, 'invalid_archive'));
      names.add(name);
      const declared = entry.uncompressedSize;
      if (declared > SKILL_FILE_LIMITS.maxFileBytes)
        return stop(
          payloadTooLarge(
            `Archive entry ${quoted} is ${declared} bytes; a file holds at most ${SKILL_FILE_LIMITS.maxFileBytes}`,
          ),
        );
      if (total + declared > SKILL_FILE_LIMITS.maxTotalBytes)
        return stop(
          payloadTooLarge(
            `The archive's files hold more than ${SKILL_FILE_LIMITS.maxTotalBytes} bytes in all`,
          ),
        );
      if (
        declared >= SKILL_FILE_LIMITS.ratioFloorBytes &&
        declared > SKILL_FILE_LIMITS.maxCompressionRatio * Math.max(entry.compressedSize, 1)
      )
        return stop(
          payloadTooLarge(
            `Archive entry ${quoted} is compressed more than ${SKILL_FILE_LIMITS.maxCompressionRatio}:1`,
          ),
        );
      total += declared;
      readEntry(zipfile, entry).then(
        (bytes) => {
          if (done) return;
          let content: string;
          try {
            content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
          } catch {
            return stop(badRequest(`Archive entry ${quoted} is not UTF-8 text`, 'invalid_file'));
          }
          files.push({ path: name, content });
          zipfile.readEntry();
        },
        (error: AppError) => stop(error),
      );
    });
    zipfile.readEntry();
  });
}

/** One entry's bytes, counted as they inflate (never past the limit) and checked against its CRC-32. */
function readEntry(zipfile: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const quoted = `"${clip(entry.fileName, 200)}"`;
  return new Promise<Buffer>((resolve, reject) => {
    zipfile.openReadStream(entry, (error, stream) => {
      if (error) return reject(invalidArchive(error));
      const chunks: Buffer[] = [];
      let size = 0;
      let crc = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > SKILL_FILE_LIMITS.maxFileBytes) {
          stream.destroy();
          return reject(
            payloadTooLarge(`Archive entry ${quoted} inflates past ${SKILL_FILE_LIMITS.maxFileBytes} bytes`),
          );
        }
        crc = crc32(chunk, crc);
        chunks.push(chunk);
      });
      // yauzl's size check: an entry that inflates to more (or less) than it declares.
      stream.on('error', (streamError: Error) =>
        reject(
          badRequest(
            `Archive entry ${quoted} is corrupt: ${clip(streamError.message, 200)}`,
            'invalid_archive',
          ),
        ),
      );
      stream.on('end', () => {
        if (crc >>> 0 !== entry.crc32 >>> 0)
          return reject(badRequest(`Archive entry ${quoted} fails its CRC-32 check`, 'invalid_archive'));
        resolve(Buffer.concat(chunks, size));
      });
    });
  });
}

/** macOS archiving leftovers: resource forks under `__MACOSX/` and Finder's `.DS_Store` files. */
function isJunk(name: string): boolean {
  const segments = name.split('/');
  return segments[0] === '__MACOSX' || segments.at(-1) === '.DS_Store';
}

/**
 * Drops the one folder every file sits in when it is not itself a skill (an archive of a folder:
 * `export/triage/SKILL.md` -> `triage/SKILL.md`; `triage/SKILL.md` alone stays), then a provider export
 * prefix (`.claude/triage/SKILL.md` -> `triage/SKILL.md`).
 */
function stripCommonFolders(files: SkillFile[]): SkillFile[] {
  let result = files;
  const top = commonTopFolder(result);
  if (top !== undefined && !result.some((file) => isSkillFile(file.path) && parentFolder(file.path) === top))
    result = strip(result, top);
  const prefix = commonTopFolder(result);
  if (prefix !== undefined && (PROVIDER_EXPORT_PREFIXES as readonly string[]).includes(prefix))
    result = strip(result, prefix);
  return result;
}

function commonTopFolder(files: readonly SkillFile[]): string | undefined {
  const first = files[0]?.path;
  const slash = first?.indexOf('/') ?? -1;
  if (first === undefined || slash === -1) return undefined;
  const top = first.slice(0, slash + 1);
  return files.every((file) => file.path.startsWith(top)) ? top.slice(0, -1) : undefined;
}

const strip = (files: readonly SkillFile[], folder: string) =>
  files.map((file) => ({ path: file.path.slice(folder.length + 1), content: file.content }));

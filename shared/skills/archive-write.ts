import type { SkillFile } from './files.ts';
import { SKILL_ARCHIVE_COMMENT } from './paths.ts';

/**
 * Writing a collection's files as a ZIP (`format=zip`), apart from reading (archive.ts), and yazl
 * loaded on first use: a module without top-level effects, so the functions that only read archives
 * (create, versions) do not bundle the writer.
 */

// A fixed time for every entry written: the same files always make the same bytes.
const ARCHIVE_MTIME = new Date(Date.UTC(2000, 0, 1));

/**
 * A ZIP of the files (deflated, regular files, one fixed timestamp), as readSkillArchive reads it back:
 * the same paths, whatever folders they share.
 */
export async function writeSkillArchive(files: readonly SkillFile[]): Promise<Buffer> {
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const file of files) {
    zip.addBuffer(Buffer.from(file.content, 'utf8'), file.path, {
      compress: true,
      mtime: ARCHIVE_MTIME,
      mode: 0o100644,
    });
  }
  // Marks the paths as from the collection root: reading it back strips no folder.
  zip.end({ comment: SKILL_ARCHIVE_COMMENT, forceZip64Format: false });
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

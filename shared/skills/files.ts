/**
 * CONTRACT STUB (issue 11, part "skill-files" implements it): the files of a skill collection, whether
 * sent as JSON `files: [{path, content}]` or as a ZIP: paths normalised and checked, SKILL.md front
 * matter checked, ZIPs read safely (yauzl, with entry/size/ratio limits) and written for `format=zip`.
 * Every function throws AppErrors (400 bad path or archive, 413 over a size limit, 422 a SKILL.md that
 * breaks the Agent Skills rules, naming the file); nothing here touches storage.
 */

/** One file of a collection: a normalised relative path and its UTF-8 text. */
export interface SkillFile {
  path: string;
  content: string;
}

/**
 * Reads a ZIP into files (text only), refusing zip-slip and absolute names, symlinks, more than 100
 * entries, a file over 5 MiB declared or actual, more than 20 MiB in all and a ratio above 100:1. One
 * common top folder that is not itself a skill, `__MACOSX/` and `.DS_Store` are dropped. The result
 * still goes through checkSkillFiles.
 */
export async function readSkillArchive(_zip: Buffer): Promise<SkillFile[]> {
  throw new Error('not implemented yet (part skill-files)');
}

/**
 * Normalises and checks a collection's files (paths: NFC, no absolute paths, `..`, backslashes, NUL or
 * control characters, at most 512 characters, no duplicates; contents: within the size limits; every
 * `SKILL.md`: front matter `name` and `description` by the Agent Skills rules, `name` matching its
 * folder). Returns the files with normalised paths, sorted by path.
 */
export function checkSkillFiles(_files: readonly SkillFile[]): SkillFile[] {
  throw new Error('not implemented yet (part skill-files)');
}

/** A ZIP of the files (for `GET .../{identifier}?format=zip`). */
export async function writeSkillArchive(_files: readonly SkillFile[]): Promise<Buffer> {
  throw new Error('not implemented yet (part skill-files)');
}

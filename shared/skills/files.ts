import { badRequest, clip, payloadTooLarge } from '#shared/platform/errors.ts';
import { checkSkillFrontMatter, FRONT_MATTER_LIMITS, frontMatterBytes, isSkillFile } from './front-matter.ts';
import { SKILL_FILE_LIMITS } from './limits.ts';
import { normaliseSkillPath } from './paths.ts';

/**
 * The files of a skill collection, whether sent as JSON `files: [{path, content}]` or as a ZIP: paths
 * normalised and checked (paths.ts), SKILL.md front matter checked (front-matter.ts), ZIPs read safely
 * (archive.ts: yauzl, with entry/size/ratio limits) and written for `format=zip`. Every function throws
 * AppErrors (400 bad path or archive, 413 over a size limit, 422 a SKILL.md that breaks the Agent Skills
 * rules, naming the file); nothing here touches storage. The archive modules import this one, never the
 * reverse, so a function that never reads a ZIP does not bundle yauzl.
 */

/** One file of a collection: a normalised relative path and its UTF-8 text. */
export interface SkillFile {
  path: string;
  content: string;
}

/**
 * Normalises and checks a collection's files (paths: NFC, no absolute paths, `..`, backslashes, NUL or
 * control characters, at most 512 characters, no duplicates, 400; sizes: 5 MiB per file, 20 MiB in all,
 * 100 files, 413; text: well-formed Unicode, 400; every `SKILL.md`: front matter `name` and
 * `description` by the Agent Skills rules, `name` matching its folder, 422). Returns the files with
 * normalised paths, sorted by path. An archive's files (readSkillArchive) go through it as JSON ones do.
 */
export function checkSkillFiles(files: readonly SkillFile[]): SkillFile[] {
  if (files.length > SKILL_FILE_LIMITS.maxFiles)
    throw payloadTooLarge(
      `A skill collection holds at most ${SKILL_FILE_LIMITS.maxFiles} files (${files.length} given)`,
    );
  const seen = new Set<string>();
  let total = 0;
  const checked = files.map((file) => {
    const path = normaliseSkillPath(file.path);
    if (seen.has(path)) throw badRequest(`Duplicate file path "${clip(path, 200)}"`, 'duplicate_file_path');
    seen.add(path);
    if (!file.content.isWellFormed())
      throw badRequest(
        `File "${clip(path, 200)}" is not valid UTF-8 text (a lone UTF-16 surrogate)`,
        'invalid_file',
      );
    const bytes = Buffer.byteLength(file.content, 'utf8');
    if (bytes > SKILL_FILE_LIMITS.maxFileBytes)
      throw payloadTooLarge(
        `File "${clip(path, 200)}" is ${bytes} bytes; a file holds at most ${SKILL_FILE_LIMITS.maxFileBytes}`,
      );
    total += bytes;
    if (total > SKILL_FILE_LIMITS.maxTotalBytes)
      throw payloadTooLarge(`The files hold more than ${SKILL_FILE_LIMITS.maxTotalBytes} bytes in all`);
    return { path, content: file.content };
  });
  for (const path of seen) {
    // A path that is also a folder of another (`a` and `a/b.md`) cannot be written out as files.
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      if (seen.has(path.slice(0, slash)))
        throw badRequest(
          `File path "${clip(path.slice(0, slash), 200)}" is also the folder of "${clip(path, 200)}"`,
          'invalid_file_path',
        );
    }
  }
  const skills = checked.filter((file) => isSkillFile(file.path));
  const frontMatter = skills.reduce((sum, file) => sum + frontMatterBytes(file.content), 0);
  if (frontMatter > FRONT_MATTER_LIMITS.maxTotalBytes)
    throw payloadTooLarge(
      `The SKILL.md front matter blocks hold ${frontMatter} bytes in all; a collection holds at most ${FRONT_MATTER_LIMITS.maxTotalBytes}`,
    );
  for (const file of skills) checkSkillFrontMatter(file.path, file.content);
  return checked.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

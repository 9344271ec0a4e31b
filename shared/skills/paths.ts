import { badRequest, clip } from '#shared/platform/errors.ts';
import { SKILL_FILE_LIMITS } from './limits.ts';

/**
 * A file path of a skill collection, normalised and checked: relative to the collection root, `/`
 * separators only, NFC. Anything else is a 400 naming the path and the rule it breaks.
 */
export function normaliseSkillPath(given: string): string {
  const refuse = (rule: string) =>
    badRequest(`Invalid file path "${clip(given, 200)}": ${rule}`, 'invalid_file_path');
  if (given === '') throw refuse('it is empty');
  if (!given.isWellFormed()) throw refuse('it holds a lone UTF-16 surrogate');
  const path = given.normalize('NFC');
  // Control characters (Unicode Cc: C0 with NUL, DEL, C1).
  if (/\p{Cc}/u.test(path)) throw refuse('it holds a control character');
  if (path.includes('\\')) throw refuse('it holds a backslash (use / between folders)');
  if (path.startsWith('/')) throw refuse('it is absolute (paths are relative to the collection root)');
  if (/^[A-Za-z]:/.test(path)) throw refuse('it starts with a drive letter');
  if ([...path].length > SKILL_FILE_LIMITS.maxPathLength)
    throw refuse(`it is longer than ${SKILL_FILE_LIMITS.maxPathLength} characters`);
  for (const segment of path.split('/')) {
    if (segment === '') throw refuse('it has an empty segment (a doubled or trailing /)');
    if (segment === '.' || segment === '..') throw refuse(`it has a "${segment}" segment`);
  }
  return path;
}

/** The folder holding a path (`a/b/SKILL.md` -> `a/b`), or '' at the collection root. */
export function parentFolder(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/**
 * The comment of the archives `format=zip` writes (archive-write.ts): their paths are already relative
 * to the collection root, so reading one back strips no folder (a collection whose files all sit in
 * `docs/` comes back as `docs/...`, not at the root).
 */
export const SKILL_ARCHIVE_COMMENT = 'promptops skill collection: paths relative to the collection root';

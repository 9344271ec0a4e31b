import { parseDocument } from 'yaml';
import { AppError, clip } from '#shared/platform/errors.ts';
import { parentFolder } from './paths.ts';

/**
 * The front matter of a `SKILL.md`, checked against the Agent Skills rules: a YAML block between `---`
 * lines at the very start, parsed with `yaml` (YAML 1.2 core schema: no custom tags, no code, aliases
 * bounded), holding `name` and `description` and, optionally, `license`, `compatibility`, `metadata`,
 * `allowed-tools` and PromptLayer's `disable-model-invocation`. Other fields are kept as they are (tools
 * add their own). A violation is a 422 naming the file and the rule.
 */
export const SKILL_FILE_NAME = 'SKILL.md';

export const FRONT_MATTER_LIMITS = {
  nameLength: 64,
  descriptionLength: 1024,
  compatibilityLength: 500,
  /** Aliases a front matter may expand (a billion-laughs document is refused long before). */
  maxAliasCount: 10,
  /**
   * Bytes of the YAML block: the spec's fields take about 2 KB (4 KB in a multi-byte script). YAML
   * parsing costs more than linear time on hostile input (thousands of keys checked for uniqueness,
   * deep nesting), so a larger block is refused before it is parsed.
   */
  maxBytes: 8192,
  /**
   * Bytes of all of a collection's front matter blocks together (checkSkillFiles): 100 skills with full
   * descriptions in a multi-byte script fit, while parsing a collection's worth of hostile blocks stays
   * around a second, far inside a function's timeout.
   */
  maxTotalBytes: 256 * 1024,
} as const;

/** The bytes of the front matter block of a SKILL.md (0 when it has none: its check says why). */
export function frontMatterBytes(content: string): number {
  const block = BLOCK.exec(content);
  return block ? Buffer.byteLength(block[1] ?? '', 'utf8') : 0;
}

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
// The block: `---` alone on the first line (after an optional byte-order mark), then YAML up to the next
// line that is `---` alone.
const BLOCK = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

export interface SkillFrontMatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

export function isSkillFile(path: string): boolean {
  return path === SKILL_FILE_NAME || path.endsWith(`/${SKILL_FILE_NAME}`);
}

/**
 * Reads and checks the front matter of the SKILL.md at `path` (already normalised). The skill's folder
 * is the one holding it: `name` must equal that folder's own name. A SKILL.md at the collection root
 * has no folder of its own (the collection is the skill), so only the other rules apply to it.
 */
export function checkSkillFrontMatter(path: string, content: string): SkillFrontMatter {
  const refuse = (rule: string, field?: string) =>
    new AppError(422, 'invalid_skill', `${clip(path, 200)}: ${rule}`, [
      { loc: ['files', path, ...(field ? [field] : [])], msg: rule, type: 'skill_front_matter' },
    ]);
  const block = BLOCK.exec(content);
  if (!block) {
    throw refuse(
      content.replace(/^\uFEFF/, '').startsWith('---')
        ? 'the YAML front matter is not closed by a line holding only ---'
        : 'must start with a YAML front matter block between --- lines (name and description)',
    );
  }
  const yaml = block[1] ?? '';
  if (Buffer.byteLength(yaml, 'utf8') > FRONT_MATTER_LIMITS.maxBytes)
    throw refuse(`the front matter is longer than ${FRONT_MATTER_LIMITS.maxBytes} bytes`);
  const document = parseDocument(yaml, {
    schema: 'core',
    uniqueKeys: true,
    prettyErrors: false,
  });
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw refuse(`the front matter is not valid YAML: ${clip(problem.message, 200)}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: FRONT_MATTER_LIMITS.maxAliasCount });
  } catch (error) {
    throw refuse(`the front matter is not valid YAML: ${clip((error as Error).message, 200)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw refuse('the front matter must be a YAML mapping of fields');
  const fields = value as Record<string, unknown>;

  const name = fields.name;
  if (typeof name !== 'string' || name === '')
    throw refuse('the front matter needs a `name` (a string)', 'name');
  if (name.length > FRONT_MATTER_LIMITS.nameLength)
    throw refuse(`\`name\` is longer than ${FRONT_MATTER_LIMITS.nameLength} characters`, 'name');
  if (!NAME.test(name)) {
    throw refuse(
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
      'name',
    );
  }
  const folder = parentFolder(path);
  const folderName = folder.slice(folder.lastIndexOf('/') + 1);
  if (folder !== '' && name !== folderName)
    throw refuse(`\`name\` "${name}" must equal the name of its folder, "${clip(folderName, 100)}"`, 'name');

  const description = fields.description;
  if (typeof description !== 'string' || description.trim() === '')
    throw refuse('the front matter needs a `description` (a non-empty string)', 'description');
  if (description.length > FRONT_MATTER_LIMITS.descriptionLength)
    throw refuse(
      `\`description\` is longer than ${FRONT_MATTER_LIMITS.descriptionLength} characters`,
      'description',
    );

  const optional = (field: string) => Object.hasOwn(fields, field) && fields[field] !== null;
  if (optional('license') && typeof fields.license !== 'string')
    throw refuse('`license` must be a string', 'license');
  if (optional('compatibility')) {
    const compatibility = fields.compatibility;
    if (typeof compatibility !== 'string' || compatibility === '')
      throw refuse('`compatibility` must be a non-empty string', 'compatibility');
    if (compatibility.length > FRONT_MATTER_LIMITS.compatibilityLength)
      throw refuse(
        `\`compatibility\` is longer than ${FRONT_MATTER_LIMITS.compatibilityLength} characters`,
        'compatibility',
      );
  }
  if (optional('metadata')) {
    const metadata = fields.metadata;
    if (
      typeof metadata !== 'object' ||
      Array.isArray(metadata) ||
      Object.values(metadata as object).some((entry) => typeof entry !== 'string')
    )
      throw refuse('`metadata` must map names to strings', 'metadata');
  }
  if (optional('allowed-tools')) {
    const tools = fields['allowed-tools'];
    const valid =
      typeof tools === 'string' || (Array.isArray(tools) && tools.every((tool) => typeof tool === 'string'));
    if (!valid)
      throw refuse(
        '`allowed-tools` must be a string (space-separated tools) or a list of strings',
        'allowed-tools',
      );
  }
  if (optional('disable-model-invocation') && typeof fields['disable-model-invocation'] !== 'boolean')
    throw refuse('`disable-model-invocation` must be true or false', 'disable-model-invocation');
  return fields as SkillFrontMatter;
}

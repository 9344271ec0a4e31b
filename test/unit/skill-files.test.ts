import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import { checkSkillFiles, type SkillFile } from '#shared/skills/files.ts';
import { SKILL_FILE_LIMITS } from '#shared/skills/limits.ts';
import { skillMd } from '#test/support/skill-archives.ts';

/**
 * The files of a skill collection as JSON sends them: path rules (400 naming the path), sizes (413),
 * text (400) and the SKILL.md front matter rules of the Agent Skills spec (422 naming the file).
 */
function refusal(files: SkillFile[]): { status: number; message: string; error: string } {
  try {
    checkSkillFiles(files);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, message: error.message, error: error.code };
  }
  throw new Error('accepted');
}

const file = (path: string, content = 'text'): SkillFile => ({ path, content });

describe('checkSkillFiles: accepted', () => {
  it('returns the files with NFC paths, sorted by path', () => {
    const decomposed = 'cafe\u0301/notes.md';
    const files = checkSkillFiles([
      file('triage/references/b.md'),
      { path: 'triage/SKILL.md', content: skillMd('triage') },
      file(decomposed),
      file('AGENTS.md'),
    ]);
    expect(files.map((f) => f.path)).toEqual([
      'AGENTS.md',
      'caf\u00e9/notes.md',
      'triage/SKILL.md',
      'triage/references/b.md',
    ]);
  });

  it('accepts the optional front matter fields of the Agent Skills spec and PromptLayer, and unknown ones', () => {
    const content = [
      '---',
      'name: pdf-tools',
      'description: "Extract text from PDFs: use when a PDF is attached."',
      'license: Apache-2.0',
      'compatibility: Needs python3 and network access',
      'metadata:',
      '  author: example-org',
      '  version: "1.0"',
      'allowed-tools: Bash(git:*) Read',
      'disable-model-invocation: true',
      'argument-hint: "[file]"',
      '---',
      'Body',
    ].join('\r\n');
    expect(() => checkSkillFiles([{ path: 'skills/pdf-tools/SKILL.md', content }])).not.toThrow();
  });

  it('accepts a SKILL.md at the collection root: the collection is the skill, so no folder to match', () => {
    expect(() => checkSkillFiles([{ path: 'SKILL.md', content: skillMd('anything-goes') }])).not.toThrow();
  });

  it('accepts a byte-order mark before the front matter, and an empty body', () => {
    const content = '\uFEFF---\nname: a1\ndescription: d\n---';
    expect(() => checkSkillFiles([{ path: 'a1/SKILL.md', content }])).not.toThrow();
  });

  it('leaves other Markdown files alone, front matter or not', () => {
    expect(() => checkSkillFiles([file('triage/skill.md', '---\nname: WRONG\n---\n')])).not.toThrow();
  });
});

describe('checkSkillFiles: paths (400 naming the path)', () => {
  it.each([
    ['', 'it is empty'],
    ['/abs/evil.md', 'it is absolute (paths are relative to the collection root)'],
    ['C:/evil.md', 'it starts with a drive letter'],
    ['c:evil.md', 'it starts with a drive letter'],
    ['../../etc/evil.md', 'it has a ".." segment'],
    ['a/../b.md', 'it has a ".." segment'],
    ['./a.md', 'it has a "." segment'],
    ['a//b.md', 'it has an empty segment (a doubled or trailing /)'],
    ['a/', 'it has an empty segment (a doubled or trailing /)'],
    ['a\\b.md', 'it holds a backslash (use / between folders)'],
    ['a\u0000b.md', 'it holds a control character'],
    ['a\nb.md', 'it holds a control character'],
    ['a\u007fb.md', 'it holds a control character'],
    ['a\u0085b.md', 'it holds a control character'],
    ['a\ud800.md', 'it holds a lone UTF-16 surrogate'],
    [`${'a'.repeat(513)}`, 'it is longer than 512 characters'],
  ])('refuses %j', (path, rule) => {
    expect(refusal([file(path)])).toEqual({
      status: 400,
      message: `Invalid file path "${path.length > 200 ? `${path.slice(0, 197)}...` : path}": ${rule}`,
      error: 'invalid_file_path',
    });
  });

  it('counts the 512 characters in code points: 512 emoji pass', () => {
    expect(() => checkSkillFiles([file('😀'.repeat(512))])).not.toThrow();
  });

  it('refuses two paths that are the same once NFC-normalised', () => {
    expect(refusal([file('caf\u00e9.md'), file('cafe\u0301.md')])).toEqual({
      status: 400,
      message: 'Duplicate file path "caf\u00e9.md"',
      error: 'duplicate_file_path',
    });
  });
});

describe('checkSkillFiles: sizes (413) and text (400)', () => {
  it('refuses a file one byte over 5 MiB, counted in UTF-8 bytes', () => {
    const max = SKILL_FILE_LIMITS.maxFileBytes;
    expect(() => checkSkillFiles([file('ok.md', 'a'.repeat(max))])).not.toThrow();
    // 'é' is two bytes: half as many characters fill the file.
    expect(refusal([file('big.md', `${'é'.repeat(max / 2)}a`)])).toEqual({
      status: 413,
      message: `File "big.md" is ${max + 1} bytes; a file holds at most ${max}`,
      error: 'payload_too_large',
    });
  });

  it('refuses more than 20 MiB in all', () => {
    const content = 'a'.repeat(4.5 * 1024 * 1024);
    const files = [1, 2, 3, 4, 5].map((n) => file(`f${n}.md`, content));
    expect(refusal(files)).toMatchObject({
      status: 413,
      message: 'The files hold more than 20971520 bytes in all',
    });
  });

  it('refuses more than 100 files', () => {
    const files = Array.from({ length: 101 }, (_, i) => file(`f${i}.md`));
    expect(refusal(files)).toEqual({
      status: 413,
      message: 'A skill collection holds at most 100 files (101 given)',
      error: 'payload_too_large',
    });
  });

  it('refuses content that is not valid UTF-8 once encoded (a lone surrogate)', () => {
    expect(refusal([file('a.md', 'x\udc00y')])).toEqual({
      status: 400,
      message: 'File "a.md" is not valid UTF-8 text (a lone UTF-16 surrogate)',
      error: 'invalid_file',
    });
  });
});

describe('checkSkillFiles: SKILL.md front matter (422 naming the file and the rule)', () => {
  const skill = (frontMatter: string, path = 'triage/SKILL.md') => [
    { path, content: `---\n${frontMatter}\n---\nbody` },
  ];
  const long = (n: number) => 'd'.repeat(n);

  it.each<[string, SkillFile[], string]>([
    [
      'no front matter',
      [file('triage/SKILL.md', '# Triage')],
      'must start with a YAML front matter block between --- lines (name and description)',
    ],
    [
      'front matter not at the start',
      [file('triage/SKILL.md', '\n---\nname: triage\n---')],
      'must start with a YAML front matter block between --- lines (name and description)',
    ],
    [
      'an unclosed block',
      [file('triage/SKILL.md', '---\nname: triage\ndescription: d\n')],
      'the YAML front matter is not closed by a line holding only ---',
    ],
    ['a list, not a mapping', skill('- a\n- b'), 'the front matter must be a YAML mapping of fields'],
    [
      'an empty block',
      [file('triage/SKILL.md', '---\n---\n')],
      'the front matter must be a YAML mapping of fields',
    ],
    ['no name', skill('description: d'), 'the front matter needs a `name` (a string)'],
    ['a number as name', skill('name: 12\ndescription: d'), 'the front matter needs a `name` (a string)'],
    [
      'upper case',
      skill('name: Triage\ndescription: d', 'Triage/SKILL.md'),
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
    ],
    [
      'a leading hyphen',
      skill('name: -triage\ndescription: d', '-triage/SKILL.md'),
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
    ],
    [
      'a trailing hyphen',
      skill('name: triage-\ndescription: d', 'triage-/SKILL.md'),
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
    ],
    [
      'a double hyphen',
      skill('name: tri--age\ndescription: d', 'tri--age/SKILL.md'),
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
    ],
    [
      'an underscore',
      skill('name: tri_age\ndescription: d', 'tri_age/SKILL.md'),
      '`name` may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen',
    ],
    [
      '65 characters',
      skill(`name: ${'a'.repeat(65)}\ndescription: d`, `${'a'.repeat(65)}/SKILL.md`),
      '`name` is longer than 64 characters',
    ],
    [
      'another folder',
      skill('name: refunds\ndescription: d', 'skills/triage/SKILL.md'),
      '`name` "refunds" must equal the name of its folder, "triage"',
    ],
    ['no description', skill('name: triage'), 'the front matter needs a `description` (a non-empty string)'],
    [
      'a blank description',
      skill('name: triage\ndescription: "  "'),
      'the front matter needs a `description` (a non-empty string)',
    ],
    [
      '1025 characters of description',
      skill(`name: triage\ndescription: ${long(1025)}`),
      '`description` is longer than 1024 characters',
    ],
    [
      '501 characters of compatibility',
      skill(`name: triage\ndescription: d\ncompatibility: ${long(501)}`),
      '`compatibility` is longer than 500 characters',
    ],
    [
      'a license that is a list',
      skill('name: triage\ndescription: d\nlicense: [MIT]'),
      '`license` must be a string',
    ],
    [
      'metadata with a number',
      skill('name: triage\ndescription: d\nmetadata:\n  version: 1'),
      '`metadata` must map names to strings',
    ],
    [
      'metadata as a string',
      skill('name: triage\ndescription: d\nmetadata: x'),
      '`metadata` must map names to strings',
    ],
    [
      'allowed-tools as a mapping',
      skill('name: triage\ndescription: d\nallowed-tools: {a: 1}'),
      '`allowed-tools` must be a string (space-separated tools) or a list of strings',
    ],
    [
      'disable-model-invocation as a string',
      skill('name: triage\ndescription: d\ndisable-model-invocation: "yes"'),
      '`disable-model-invocation` must be true or false',
    ],
  ])('refuses %s', (_label, files, rule) => {
    const path = files[0]!.path;
    expect(refusal(files)).toEqual({ status: 422, message: `${path}: ${rule}`, error: 'invalid_skill' });
  });

  it.each([
    ['invalid YAML', 'name: [triage\ndescription: d'],
    ['a duplicate key', 'name: triage\nname: triage\ndescription: d'],
    [
      'a custom tag (no code runs, none resolves)',
      'name: !!js/function "function () { return 1 }"\ndescription: d',
    ],
    ['an unknown local tag', 'name: !shell triage\ndescription: d'],
  ])('refuses %s as invalid YAML', (_label, frontMatter) => {
    const result = refusal(skill(frontMatter));
    expect(result).toMatchObject({ status: 422, error: 'invalid_skill' });
    expect(result.message).toMatch(/^triage\/SKILL\.md: the front matter is not valid YAML: /);
  });

  it('refuses an alias bomb without expanding it', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const result = refusal(skill(`name: triage\ndescription: d\n${lines.join('\n')}`));
    expect(result).toMatchObject({ status: 422, error: 'invalid_skill' });
    expect(result.message).toMatch(/^triage\/SKILL\.md: the front matter is not valid YAML: .*alias/i);
  });

  it('refuses a front matter over 8 KiB before parsing it (YAML costs more than linear time on hostile input)', () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `k${i}: v`).join('\n');
    const result = refusal(skill(`name: triage\ndescription: d\n${keys}`));
    expect(result).toMatchObject({ status: 422, error: 'invalid_skill' });
    expect(result.message).toBe('triage/SKILL.md: the front matter is longer than 8192 bytes');
    const nested = refusal(skill(`name: triage\ndescription: d\nm: ${'['.repeat(100_000)}`));
    expect(nested.message).toBe('triage/SKILL.md: the front matter is longer than 8192 bytes');
    // A long description in a multi-byte script still fits.
    expect(() => checkSkillFiles(skill(`name: triage\ndescription: ${'説'.repeat(1024)}`))).not.toThrow();
  });

  it('refuses (413) a collection whose front matter blocks hold more than 256 KiB together, before parsing any', () => {
    // 40 skills of 7.5 KB of keys each: every block alone is within its limit.
    const keys = Array.from({ length: 950 }, (_, i) => `k${i}: v`).join('\n');
    const files = Array.from({ length: 40 }, (_, i) => ({
      path: `skill-${i}/SKILL.md`,
      content: `---\nname: skill-${i}\ndescription: d\n${keys}\n---\nBody\n`,
    }));
    const result = refusal(files);
    expect(result.status).toBe(413);
    expect(result.message).toMatch(
      /^The SKILL\.md front matter blocks hold \d+ bytes in all; a collection holds at most 262144$/,
    );
    // 30 of them fit.
    expect(checkSkillFiles(files.slice(0, 30))).toHaveLength(30);
  });

  it('names the SKILL.md that breaks a rule among several', () => {
    const files = [
      { path: 'a/SKILL.md', content: skillMd('a') },
      { path: 'b/SKILL.md', content: skillMd('c') },
    ];
    expect(refusal(files).message).toBe('b/SKILL.md: `name` "c" must equal the name of its folder, "b"');
  });
});

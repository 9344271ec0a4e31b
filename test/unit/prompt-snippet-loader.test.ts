import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TemplateHead, VersionRecord } from '#shared/prompts/records.ts';

// The loader's table access, replaced so the test sees exactly which reads a level costs.
vi.mock('#shared/prompts/repository.ts', () => ({
  readHeadAndLatest: vi.fn(),
  getTemplateItems: vi.fn(),
}));
const repository = await import('#shared/prompts/repository.ts');
const { snippetLoader } = await import('#shared/prompts/read.ts');
const readHeadAndLatest = vi.mocked(repository.readHeadAndLatest);
const getTemplateItems = vi.mocked(repository.getTemplateItems);

const version = (name: string, number: number, text = `${name} v${number}`): VersionRecord => ({
  id: number * 100,
  prompt_id: 1,
  prompt_name: name,
  number,
  prompt_template: { type: 'completion', content: [{ type: 'text', text }] },
  metadata: null,
  commit_message: null,
  created_at: 0,
});
const head = (name: string, labels: Record<string, number> = {}): TemplateHead => ({
  id: 1,
  name,
  tags: [],
  folder_id: null,
  created_at: 0,
  updated_at: 0,
  labels: Object.fromEntries(
    Object.entries(labels).map(([label, n]) => [
      label,
      { id: 9, prompt_version_id: n * 100, version_number: n, created_at: 0, updated_at: 0 },
    ]),
  ),
  has_external_ids: false,
});

/** What the table holds: versions 1..3 of every template, tone's labels and label copies. */
const heads: Record<string, TemplateHead> = {
  tone: head('tone', { prod: 3, old: 1, moved: 2 }),
  intro: head('intro'),
};
const copies: Record<string, VersionRecord> = {
  'tone#prod': version('tone', 3),
  'tone#old': version('tone', 1),
  // Out of step: the head says version 2 (a move that stopped before rewriting the copy).
  'tone#moved': version('tone', 1),
};

beforeEach(() => {
  vi.resetAllMocks();
  readHeadAndLatest.mockImplementation(async (_ws, name) => {
    if (name === 'tone') return { head: heads.tone, latest: version('tone', 3) };
    if (name === 'intro') return { head: heads.intro, latest: version('intro', 2) };
    return {};
  });
  getTemplateItems.mockImplementation(async () => ({
    head: (name) => heads[name],
    version: (name, number) => (number <= 3 ? version(name, number) : undefined),
    labelCopy: (name, label) => copies[`${name}#${label}`],
  }));
});

describe('snippetLoader', () => {
  it('reads a level in one round: one query per latest name, one batch for pinned and labelled refs', async () => {
    const load = snippetLoader(7);
    const result = await load([
      { name: 'tone', raw: '@@@tone@@@' },
      { name: 'tone', label: 'prod', raw: '@@@tone@label:prod@@@' },
      { name: 'tone', label: 'old', raw: '@@@tone@label:old@@@' },
      { name: 'intro', raw: '@@@intro@@@' },
      { name: 'sign', version: 1, raw: '@@@sign@version_number:1@@@' },
    ]);
    expect(readHeadAndLatest.mock.calls).toEqual([
      [7, 'tone'],
      [7, 'intro'],
    ]);
    expect(getTemplateItems.mock.calls).toEqual([
      [
        7,
        {
          versions: [{ name: 'sign', number: 1 }],
          heads: ['tone', 'tone'],
          labelCopies: [
            { name: 'tone', label: 'prod' },
            { name: 'tone', label: 'old' },
          ],
        },
      ],
    ]);
    expect(result.get('@@@tone@@@')).toMatchObject({ prompt_name: 'tone', version: 3, label: null });
    expect(result.get('@@@tone@label:prod@@@')).toMatchObject({ version: 3, label: 'prod' });
    // A label on an older version comes from its copy, in the same round.
    expect(result.get('@@@tone@label:old@@@')).toMatchObject({ version: 1, label: 'old' });
    expect(result.get('@@@intro@@@')).toMatchObject({ version: 2 });
    expect(result.get('@@@sign@version_number:1@@@')).toMatchObject({ prompt_name: 'sign', version: 1 });
  });

  it('reads the version the head names when the label copy is out of step, in one more batch', async () => {
    const result = await snippetLoader(7)([{ name: 'tone', label: 'moved', raw: '@@@tone@label:moved@@@' }]);
    expect(getTemplateItems).toHaveBeenCalledTimes(2);
    expect(getTemplateItems.mock.calls[1]).toEqual([7, { versions: [{ name: 'tone', number: 2 }] }]);
    expect(result.get('@@@tone@label:moved@@@')).toMatchObject({ version: 2, label: 'moved' });
  });

  it('never trusts a label copy for a label the head does not have', async () => {
    copies['tone#gone'] = version('tone', 2);
    const result = await snippetLoader(7)([{ name: 'tone', label: 'gone', raw: '@@@tone@label:gone@@@' }]);
    expect(result.get('@@@tone@label:gone@@@')).toBeUndefined();
  });

  it('leaves unknown templates, labels and versions unresolved', async () => {
    const result = await snippetLoader(7)([
      { name: 'nobody', raw: '@@@nobody@@@' },
      { name: 'tone', label: 'nope', raw: '@@@tone@label:nope@@@' },
      { name: 'tone', version: 9, raw: '@@@tone@version_number:9@@@' },
    ]);
    expect([...result.values()].filter(Boolean)).toEqual([]);
  });
});

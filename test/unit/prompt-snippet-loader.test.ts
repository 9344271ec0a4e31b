import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TemplateHead, VersionRecord } from '#shared/prompts/records.ts';

// The loader's table access, replaced so the test sees exactly which reads a level costs.
vi.mock('#shared/prompts/repository.ts', () => ({
  readHeadAndLatest: vi.fn(),
  getVersions: vi.fn(),
}));
const repository = await import('#shared/prompts/repository.ts');
const { snippetLoader } = await import('#shared/prompts/read.ts');
const readHeadAndLatest = vi.mocked(repository.readHeadAndLatest);
const getVersions = vi.mocked(repository.getVersions);

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

beforeEach(() => {
  vi.resetAllMocks();
  readHeadAndLatest.mockImplementation(async (_ws, name) => {
    if (name === 'tone') return { head: head('tone', { prod: 3, old: 1 }), latest: version('tone', 3) };
    if (name === 'intro') return { head: head('intro'), latest: version('intro', 2) };
    return {};
  });
  getVersions.mockImplementation(
    async (_ws, wanted) =>
      new Map(
        wanted.filter((w) => w.number <= 3).map((w) => [`${w.name}@${w.number}`, version(w.name, w.number)]),
      ),
  );
});

describe('snippetLoader', () => {
  it('reads a level with one query per floating name and one batch for pinned versions, in parallel', async () => {
    const load = snippetLoader(7);
    const result = await load([
      { name: 'tone', raw: '@@@tone@@@' },
      { name: 'tone', label: 'prod', raw: '@@@tone@label:prod@@@' },
      { name: 'intro', raw: '@@@intro@@@' },
      { name: 'sign', version: 1, raw: '@@@sign@version_number:1@@@' },
    ]);
    expect(readHeadAndLatest.mock.calls).toEqual([
      [7, 'tone'],
      [7, 'intro'],
    ]);
    expect(getVersions.mock.calls).toEqual([[7, [{ name: 'sign', number: 1 }]]]);
    expect(result.get('@@@tone@@@')).toMatchObject({ prompt_name: 'tone', version: 3, label: null });
    // The label is on the latest version, which the query already brought: no second read.
    expect(result.get('@@@tone@label:prod@@@')).toMatchObject({ version: 3, label: 'prod' });
    expect(result.get('@@@intro@@@')).toMatchObject({ version: 2 });
    expect(result.get('@@@sign@version_number:1@@@')).toMatchObject({ prompt_name: 'sign', version: 1 });
  });

  it('reads labels on older versions in one more batch', async () => {
    const result = await snippetLoader(7)([{ name: 'tone', label: 'old', raw: '@@@tone@label:old@@@' }]);
    expect(getVersions.mock.calls).toEqual([[7, [{ name: 'tone', number: 1 }]]]);
    expect(result.get('@@@tone@label:old@@@')).toMatchObject({ version: 1, label: 'old' });
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

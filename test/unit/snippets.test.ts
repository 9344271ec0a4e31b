import { describe, expect, it, vi } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import type {
  ChatBlueprint,
  CompletionBlueprint,
  PromptBlueprint,
} from '#shared/prompts/llm-kwargs/blueprint.ts';
import type { SnippetLoader } from '#shared/prompts/snippets.ts';
import { findSnippetRefs, MAX_SNIPPET_DEPTH, resolveSnippets } from '#shared/prompts/snippets.ts';

interface Stored {
  name: string;
  version: number;
  labels?: string[];
  blueprint: PromptBlueprint;
}

const completion = (...texts: string[]): CompletionBlueprint => ({
  type: 'completion',
  content: texts.map((text) => ({ type: 'text', text })),
  input_variables: [],
  template_format: 'f-string',
});

const chat = (...texts: string[]): ChatBlueprint => ({
  type: 'chat',
  messages: texts.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
  input_variables: [],
  template_format: 'f-string',
});

const latest = (name: string, text: string, version = 1): Stored => ({
  name,
  version,
  blueprint: completion(text),
});

/** An in-memory registry behind a loader that records every batched call (as the refs' raw strings). */
function registry(templates: Stored[]) {
  const load = vi.fn<SnippetLoader>(async (refs) => {
    const found = refs.map((ref) => {
      const versions = templates.filter((t) => t.name === ref.name).sort((a, b) => a.version - b.version);
      const hit =
        ref.version !== undefined
          ? versions.find((t) => t.version === ref.version)
          : ref.label !== undefined
            ? versions.find((t) => t.labels?.includes(ref.label!))
            : versions.at(-1);
      const snippet = hit && {
        prompt_name: hit.name,
        version: hit.version,
        label: ref.label ?? null,
        blueprint: hit.blueprint,
      };
      return [ref.raw, snippet] as const;
    });
    return new Map(found);
  });
  const calls = () => load.mock.calls.map(([refs]) => refs.map((ref) => ref.raw));
  return { load, calls };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

const textOf = (blueprint: PromptBlueprint) =>
  blueprint.type === 'completion'
    ? blueprint.content.map((block) => block.text).join('')
    : blueprint.messages.map((message) => message.content?.map((block) => block.text).join('')).join('|');

describe('findSnippetRefs', () => {
  it('reads the three reference forms, unique by literal, in order of appearance', () => {
    const blueprint = chat(
      'Hi @@@intro@label:prod@@@ and @@@release notes/v2.1-final@@@',
      '@@@intro@label:prod@@@ again, then @@@footer@version_number:12@@@',
    );
    expect(findSnippetRefs(blueprint)).toEqual([
      { name: 'intro', label: 'prod', raw: '@@@intro@label:prod@@@' },
      { name: 'release notes/v2.1-final', raw: '@@@release notes/v2.1-final@@@' },
      { name: 'footer', version: 12, raw: '@@@footer@version_number:12@@@' },
    ]);
  });

  it('leaves text outside the grammar alone and looks only at text blocks', () => {
    const blueprint: ChatBlueprint = {
      type: 'chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a lone @@@, @@@@@@, @@@ padded@@@, @@@x@draft:1@@@ and @@@two\nlines@@@' },
            { type: 'thinking', thinking: '@@@hidden@@@' },
          ],
        },
      ],
    };
    expect(findSnippetRefs(blueprint)).toEqual([]);
  });

  it.each([
    ['@@@intro@version_number:abc@@@', 'version_number must be a positive integer'],
    ['@@@intro@version_number:0@@@', 'version_number must be a positive integer'],
    ['@@@intro@label:@@@', 'the label is empty or padded with spaces'],
  ])('rejects the malformed reference %s with a 422', (text, msg) => {
    const error = errorOf(() => findSnippetRefs(completion(text)));
    expect(error).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'prompt_version', 'prompt_template'] }],
    });
    expect(error.message).toContain(msg);
  });
});

describe('resolveSnippets', () => {
  it('never calls the loader when there is nothing to resolve, and still returns a copy', async () => {
    const { load } = registry([]);
    const blueprint = chat('No snippets here, only an email@@@example.');
    const result = await resolveSnippets(blueprint, load);
    expect(load).not.toHaveBeenCalled();
    expect(result).toEqual({ blueprint, snippets: [], references: [] });
    expect(result.blueprint).not.toBe(blueprint);
  });

  it('expands three nested levels with one batched load per level', async () => {
    const { load, calls } = registry([
      latest('greeting', 'Hello, @@@persona@label:prod@@@!', 2),
      {
        name: 'persona',
        version: 3,
        labels: ['prod'],
        blueprint: completion('I am ', '@@@name@version_number:1@@@'),
      },
      { name: 'persona', version: 4, blueprint: completion('draft persona') },
      latest('name', 'Ada'),
      latest('name', 'Grace', 2),
    ]);
    const result = await resolveSnippets(chat('@@@greeting@@@ How can I help?'), load);

    expect(textOf(result.blueprint)).toBe('Hello, I am Ada! How can I help?');
    expect(result.snippets).toEqual([
      { prompt_name: 'greeting', version: 2, label: null },
      { prompt_name: 'persona', version: 3, label: 'prod' },
      { prompt_name: 'name', version: 1, label: null },
    ]);
    // The template's own references only: what snippet usage indexes.
    expect(result.references).toEqual([{ prompt_name: 'greeting', version: 2, label: null }]);
    expect(calls()).toEqual([
      ['@@@greeting@@@'],
      ['@@@persona@label:prod@@@'],
      ['@@@name@version_number:1@@@'],
    ]);
  });

  it('resolves a pinned version, a label and the latest of the same template to different versions', async () => {
    const { load } = registry([
      latest('tone', 'formal', 1),
      { name: 'tone', version: 2, labels: ['staging'], blueprint: completion('casual') },
      latest('tone', 'pirate', 3),
    ]);
    const result = await resolveSnippets(
      completion('[@@@tone@version_number:1@@@] [@@@tone@label:staging@@@] [@@@tone@@@]'),
      load,
    );
    expect(textOf(result.blueprint)).toBe('[formal] [casual] [pirate]');
    expect(result.snippets).toEqual([
      { prompt_name: 'tone', version: 1, label: null },
      { prompt_name: 'tone', version: 2, label: 'staging' },
      { prompt_name: 'tone', version: 3, label: null },
    ]);
  });

  it('loads a snippet used twice, or at two levels, once', async () => {
    const { load, calls } = registry([
      latest('a', 'A(@@@c@@@)'),
      latest('b', 'B(@@@c@@@ @@@d@@@)'),
      latest('c', 'C'),
      latest('d', 'D(@@@a@@@)'),
    ]);
    const result = await resolveSnippets(chat('@@@a@@@ @@@b@@@', 'again @@@a@@@'), load);

    expect(textOf(result.blueprint)).toBe('A(C) B(C D(A(C)))|again A(C)');
    expect(calls()).toEqual([
      ['@@@a@@@', '@@@b@@@'],
      ['@@@c@@@', '@@@d@@@'],
    ]);
    expect(result.snippets.map((s) => s.prompt_name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('does not modify its input', async () => {
    const { load } = registry([latest('sig', 'Regards')]);
    const blueprint = chat('Bye. @@@sig@@@');
    const before = structuredClone(blueprint);
    await resolveSnippets(blueprint, load);
    expect(blueprint).toEqual(before);
  });

  it('is a 422 naming the cycle when A references B and B references A', async () => {
    const { load } = registry([latest('A', 'a @@@B@@@'), latest('B', 'b @@@A@@@')]);
    const error = await rejection(resolveSnippets(completion('@@@A@@@'), load));
    expect(error).toMatchObject({ status: 422, detail: [{ msg: 'snippet cycle: A → B → A' }] });
  });

  it('is a 422 when a snippet reaches itself, whatever literal it uses', async () => {
    const { load } = registry([latest('loop', 'x @@@loop@version_number:1@@@')]);
    const error = await rejection(resolveSnippets(completion('@@@loop@@@'), load));
    expect(error.detail?.[0]?.msg).toBe('snippet cycle: loop → loop');
  });

  it('treats a chain back to selfName as a cycle without loading the template being published', async () => {
    const { load, calls } = registry([latest('A', 'old A'), latest('B', 'b @@@A@label:prod@@@')]);
    const error = await rejection(resolveSnippets(completion('new A uses @@@B@@@'), load, { selfName: 'A' }));
    expect(error.detail?.[0]?.msg).toBe('snippet cycle: A → B → A');
    expect(calls()).toEqual([['@@@B@@@']]);

    const direct = await rejection(resolveSnippets(completion('@@@A@@@'), load, { selfName: 'A' }));
    expect(direct.detail?.[0]?.msg).toBe('snippet cycle: A → A');
  });

  it('resolves a pinned older version of the template being published: it cannot change', async () => {
    const { load, calls } = registry([
      latest('cycA', 'plain v1'),
      latest('cycA', 'v2 @@@B@@@', 2),
      latest('B', 'b'),
    ]);
    const result = await resolveSnippets(completion('v3 keeps @@@cycA@version_number:1@@@'), load, {
      selfName: 'cycA',
    });
    expect(textOf(result.blueprint)).toBe('v3 keeps plain v1');
    expect(result.snippets).toEqual([{ prompt_name: 'cycA', version: 1, label: null }]);
    expect(calls()).toEqual([['@@@cycA@version_number:1@@@']]);

    // A pinned version whose own references reach back to the template unpinned is still a cycle.
    const { load: loadBack } = registry([latest('cycA', 'v1 @@@B@@@'), latest('B', 'b @@@cycA@@@')]);
    const error = await rejection(
      resolveSnippets(completion('@@@cycA@version_number:1@@@'), loadBack, { selfName: 'cycA' }),
    );
    expect(error.detail?.[0]?.msg).toBe('snippet cycle: cycA → cycA → B → cycA');
    // And so is a pinned version that references itself.
    const { load: loadSelf } = registry([latest('cycA', 'v1 @@@cycA@version_number:1@@@')]);
    const looped = await rejection(
      resolveSnippets(completion('@@@cycA@version_number:1@@@'), loadSelf, { selfName: 'cycA' }),
    );
    expect(looped.detail?.[0]?.msg).toBe('snippet cycle: cycA → cycA');
  });

  it('is a 422 at the given location for an unknown snippet', async () => {
    const { load } = registry([latest('known', 'text @@@missing@label:prod@@@')]);
    const error = await rejection(resolveSnippets(chat('@@@known@@@'), load, { loc: ['query', 'label'] }));
    expect(error).toMatchObject({
      status: 422,
      detail: [{ loc: ['query', 'label'], msg: 'unknown snippet "missing" (label prod)' }],
    });
  });

  it('is a 422 when a chat template is used as a snippet', async () => {
    const { load } = registry([{ name: 'convo', version: 1, blueprint: chat('hello') }]);
    const error = await rejection(resolveSnippets(completion('@@@convo@@@'), load));
    expect(error.status).toBe(422);
    expect(error.message).toContain('only completion templates can be snippets');
  });

  it('is a 422 when a snippet holds a malformed reference', async () => {
    const { load } = registry([latest('bad', 'see @@@other@version_number:x@@@')]);
    const error = await rejection(resolveSnippets(completion('@@@bad@@@'), load));
    expect(error.message).toContain('version_number must be a positive integer');
  });

  describe('depth limit', () => {
    const chain = (levels: number) =>
      Array.from({ length: levels }, (_, i) =>
        latest(`s${i + 1}`, i + 1 < levels ? `${i + 1}>@@@s${i + 2}@@@` : 'end'),
      );

    it(`allows ${MAX_SNIPPET_DEPTH} levels, one load each`, async () => {
      const { load } = registry(chain(MAX_SNIPPET_DEPTH));
      const result = await resolveSnippets(completion('@@@s1@@@'), load);
      expect(textOf(result.blueprint)).toBe('1>2>3>4>5>6>7>8>9>end');
      expect(load).toHaveBeenCalledTimes(MAX_SNIPPET_DEPTH);
    });

    it('is a 422 one level deeper, without loading that level', async () => {
      const { load } = registry(chain(MAX_SNIPPET_DEPTH + 1));
      const error = await rejection(resolveSnippets(completion('@@@s1@@@'), load));
      expect(error.detail?.[0]?.msg).toBe(
        `snippets nest deeper than ${MAX_SNIPPET_DEPTH} levels: s1 → s2 → s3 → s4 → s5 → s6 → s7 → s8 → s9 → s10 → s11`,
      );
      expect(load).toHaveBeenCalledTimes(MAX_SNIPPET_DEPTH);
    });

    it('is a 422 when a long path reaches a snippet that a short path loaded', async () => {
      // x is at level 1 directly and at level 10 through c1..c9; its child y then sits at level 11.
      const { load } = registry([
        ...Array.from({ length: 9 }, (_, i) => latest(`c${i + 1}`, i < 8 ? `@@@c${i + 2}@@@` : '@@@x@@@')),
        latest('x', '@@@y@@@'),
        latest('y', 'leaf'),
      ]);
      const error = await rejection(resolveSnippets(completion('@@@x@@@ @@@c1@@@'), load));
      expect(error.status).toBe(422);
      expect(error.message).toContain(`snippets nest deeper than ${MAX_SNIPPET_DEPTH} levels: c1 → c2`);
    });
  });
});

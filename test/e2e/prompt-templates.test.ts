import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, completion, OPENAI_MODEL, publish, publishBody, uniqueName } from '#test/support/prompts.ts';

/**
 * The prompt registry through the local gateway: publishing, reading raw templates
 * with versions, labels, snippets, llm_kwargs and the default cache, and listing.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const get = (
  identifier: string | number,
  query?: Record<string, string | number | boolean>,
  headers?: Record<string, string>,
) => service.call('GET', `/prompt-templates/${encodeURIComponent(String(identifier))}`, { query, headers });
const noCache = { 'Cache-Control': 'no-cache' };

/** A key of a fresh workspace, for tests that need the workspace to themselves. */
const freshWorkspaceKey = (name: string) => service.otherWorkspaceKey(`${name}-${Date.now()}`);

describe('POST /rest/prompt-templates', () => {
  it('creates the template on the first publish and answers 200 (as PromptLayer documents) with every documented field', async () => {
    const name = uniqueName('support');
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: {
        prompt_template: {
          prompt_name: name,
          tags: ['support', 'en'],
          folder_id: await createFolder(service),
        },
        prompt_version: {
          prompt_template: {
            type: 'chat',
            messages: [{ role: 'system', content: [{ type: 'text', text: 'Be kind.' }] }],
          },
          commit_message: 'First draft',
          metadata: { model: OPENAI_MODEL, owner: 'team-a' },
        },
        release_labels: ['prod'],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.any(Number),
      prompt_name: name,
      prompt_version_id: expect.any(Number),
      version_number: 1,
      tags: ['support', 'en'],
      release_labels: ['prod'],
      // The documented defaults are stored with the version.
      prompt_template: {
        type: 'chat',
        messages: [{ role: 'system', content: [{ type: 'text', text: 'Be kind.' }] }],
        input_variables: [],
        template_format: 'f-string',
      },
      metadata: { model: OPENAI_MODEL, owner: 'team-a' },
      commit_message: 'First draft',
      external_ids: [],
    });
  });

  it('adds versions 2, 3 to the same template, each publish setting the tags (absent or null: none)', async () => {
    const name = uniqueName('versions');
    const first = await publish(service, name, undefined, {
      prompt_template: { prompt_name: name, tags: ['a'] },
    });
    const second = await publish(service, name);
    const third = await publish(service, name, completion('Now a completion {x}'), {
      prompt_template: { prompt_name: name, tags: ['b'] },
    });
    expect([first.version_number, second.version_number, third.version_number]).toEqual([1, 2, 3]);
    expect(new Set([first.id, second.id, third.id]).size).toBe(1);
    expect(new Set([first.prompt_version_id, second.prompt_version_id, third.prompt_version_id]).size).toBe(
      3,
    );
    // The default for prompt_template.tags is [].
    expect(second.tags).toEqual([]);
    expect(third.tags).toEqual(['b']);
    expect((await get(name)).body).toMatchObject({
      version: 3,
      tags: ['b'],
      prompt_template: { type: 'completion' },
    });
    const fourth = await publish(service, name, undefined, {
      prompt_template: { prompt_name: name, tags: null },
    });
    expect(fourth.tags).toEqual([]);
    expect((await get(name, {}, noCache)).body).toMatchObject({ version: 4, tags: [] });
  });

  it('accepts jinja2 templates and keeps the format', async () => {
    const name = uniqueName('jinja');
    const body = await publish(service, name, { ...completion('Hi {{ name }}'), template_format: 'jinja2' });
    expect(body.prompt_template.template_format).toBe('jinja2');
  });

  it.each([
    [
      'content given as a plain string',
      { prompt_template: { type: 'chat', messages: [{ role: 'user', content: 'Hello' }] } },
      ['body', 'prompt_version', 'prompt_template'],
    ],
    [
      'an unknown template_format',
      { prompt_template: { ...completion('x'), template_format: 'mustache' } },
      ['body', 'prompt_version'],
    ],
    [
      'a commit message over 72 characters',
      { prompt_template: completion('x'), commit_message: 'x'.repeat(73) },
      ['body', 'prompt_version', 'commit_message'],
    ],
    [
      'a model without a provider',
      { prompt_template: completion('x'), metadata: { model: { name: 'gpt-4o' } } },
      ['body', 'prompt_version', 'metadata'],
    ],
    ['no blueprint at all', {}, ['body', 'prompt_version', 'prompt_template']],
  ])('rejects %s with a 422 and stores nothing', async (_, promptVersion, loc) => {
    const before = await service.countItems();
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: uniqueName('bad') }, prompt_version: promptVersion },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, error: 'validation_error' });
    expect(response.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
    expect(await service.countItems()).toBe(before);
  });

  it('rejects an empty or too long prompt name', async () => {
    for (const prompt_name of ['', 'n'.repeat(513)]) {
      const response = await service.call('POST', '/rest/prompt-templates', {
        body: { ...publishBody('x'), prompt_template: { prompt_name } },
      });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'prompt_template', 'prompt_name']);
    }
  });

  it('refuses tags and labels the template head could not hold before writing anything (413, 422)', async () => {
    const name = uniqueName('crowded');
    await publish(service, name, completion('one'));
    const tooManyTags = Array.from({ length: 800 }, (_, i) => `${i}`.padEnd(512, 't'));
    const tags = await service.rejected('POST', '/rest/prompt-templates', {
      body: publishBody(name, completion('two'), {
        prompt_template: { prompt_name: name, tags: tooManyTags },
      }),
    });
    expect(tags.status).toBe(413);
    const labels = await service.rejected('POST', '/rest/prompt-templates', {
      body: publishBody(name, completion('two'), {
        release_labels: Array.from({ length: 101 }, (_, i) => `l${i}`),
      }),
    });
    expect(labels.status).toBe(422);
    expect(labels.body.detail[0].loc).toEqual(['body', 'release_labels']);
    expect((await get(name, {}, noCache)).body.version).toBe(1);
  });

  it('refuses to publish into another workspace named in the body', async () => {
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: {
        ...publishBody('x'),
        prompt_template: { prompt_name: uniqueName('ws'), workspace_id: 999_999 },
      },
    });
    expect(response.status).toBe(403);
  });

  it('needs edit permission on prompts', async () => {
    const key = await service.keyWithPermissions({ prompts: 'read' });
    const response = await service.call('POST', '/rest/prompt-templates', { body: publishBody('x'), key });
    expect(response.status).toBe(403);
    expect((await service.call('GET', '/prompt-templates', { key })).status).toBe(200);
  });
});

describe('GET /prompt-templates/{identifier}', () => {
  let name: string;
  let id: number;
  beforeAll(async () => {
    name = uniqueName('reader');
    ({ id } = await publish(service, name, chat('Version one'), { release_labels: ['prod', 'staging'] }));
    await publish(service, name, chat('Version two'), { release_labels: ['staging'] });
    await publish(service, name, chat('Version three'));
  });
  const systemText = (body: { prompt_template: { messages: { content: { text: string }[] }[] } }) =>
    body.prompt_template.messages[0]?.content[0]?.text;

  it('answers the latest version by name with the fields of the raw template', async () => {
    const response = await get(name);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      id,
      prompt_name: name,
      version: 3,
      workspace_id: service.workspaceId,
      prompt_template: { ...chat('Version three'), template_format: 'f-string' },
      metadata: { model: OPENAI_MODEL },
      commit_message: 'test',
      tags: [],
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      snippets: [],
    });
    expect(systemText(response.body)).toBe('Version three');
    expect(response.body).not.toHaveProperty('llm_kwargs');
  });

  it('answers the same template by id', async () => {
    const response = await get(id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, prompt_name: name, version: 3 });
  });

  it('picks a version by number or by release label', async () => {
    expect(systemText((await get(name, { version: 1 })).body)).toBe('Version one');
    expect((await get(id, { label: 'prod' })).body).toMatchObject({ version: 1 });
    expect((await get(name, { label: 'staging' })).body).toMatchObject({ version: 2 });
  });

  it('rejects version and label together with a 422', async () => {
    const response = await get(name, { version: 1, label: 'prod' });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].msg).toMatch(/mutually exclusive/);
  });

  it.each([
    ['an unknown version', { version: 42 }],
    ['an unknown label', { label: 'canary' }],
  ])('answers 404 for %s', async (_, query) => {
    const response = await get(name, query);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: 'not_found' });
  });

  it('answers 404 for an unknown name or id', async () => {
    expect((await get(uniqueName('missing'))).status).toBe(404);
    expect((await get(987_654_321)).status).toBe(404);
  });

  it.each([
    [{ version: 0 }],
    [{ version: 'two' }],
    [{ resolve_snippets: 'maybe' }],
    [{ include_llm_kwargs: 'yes please' }],
  ])('rejects a malformed query %j with a 422', async (query) => {
    expect((await get(name, query)).status).toBe(422);
  });

  it('reads a template whose name is all digits by name when no id matches', async () => {
    const digits = String(900_000_000 + Math.floor(Math.random() * 1000));
    await publish(service, digits, completion('named by digits'));
    expect((await get(digits)).body).toMatchObject({ prompt_name: digits });
  });

  it('reads names with slashes, spaces and unicode', async () => {
    const odd = `${uniqueName('team/a')} ünïcode ✓`;
    await publish(service, odd, completion('odd'));
    expect((await get(odd)).body).toMatchObject({ prompt_name: odd });
  });
});

describe('snippets', () => {
  it('expands nested, pinned and labelled snippets and lists each with the version it used', async () => {
    const tone = uniqueName('tone');
    const sign = uniqueName('sign');
    const intro = uniqueName('intro');
    await publish(service, tone, completion('warm v1'), { release_labels: ['prod'] });
    await publish(service, tone, completion('warm v2'));
    await publish(service, sign, completion('Bye.'));
    await publish(service, intro, completion(`Hi, tone: @@@${tone}@label:prod@@@.`));
    const name = uniqueName('letter');
    const template = {
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: `@@@${intro}@@@ Latest: @@@${tone}@@@` }] },
        { role: 'user', content: [{ type: 'text', text: `{q} @@@${sign}@version_number:1@@@` }] },
      ],
    };
    await publish(service, name, template);

    const response = await get(name);
    expect(response.status).toBe(200);
    expect(response.body.prompt_template.messages[0].content[0].text).toBe(
      'Hi, tone: warm v1. Latest: warm v2',
    );
    expect(response.body.prompt_template.messages[1].content[0].text).toBe('{q} Bye.');
    expect(response.body.snippets).toEqual(
      expect.arrayContaining([
        { prompt_name: intro, version: 1, label: null },
        { prompt_name: tone, version: 2, label: null },
        { prompt_name: tone, version: 1, label: 'prod' },
        { prompt_name: sign, version: 1, label: null },
      ]),
    );
    expect(response.body.snippets).toHaveLength(4);

    const raw = await get(name, { resolve_snippets: false });
    expect(raw.body.prompt_template.messages[0].content[0].text).toBe(`@@@${intro}@@@ Latest: @@@${tone}@@@`);
    expect(raw.body.snippets).toEqual([]);
  });

  it('rejects a publish whose snippet does not exist with a 422 and keeps nothing', async () => {
    const before = await service.countItems();
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(uniqueName('broken'), completion('@@@no-such-snippet@@@')),
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(/unknown snippet "no-such-snippet"/);
    expect(await service.countItems()).toBe(before);
  });

  it('rejects a snippet cycle through the template being published', async () => {
    const a = uniqueName('cycle-a');
    const b = uniqueName('cycle-b');
    await publish(service, a, completion('A alone'));
    await publish(service, b, completion(`B uses @@@${a}@@@`));
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(a, completion(`A now uses @@@${b}@@@`)),
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(/cycle/);
    expect((await get(a)).body.version).toBe(1);

    const latestSelf = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(a, completion(`@@@${a}@@@`)),
    });
    expect(latestSelf.status).toBe(422);
    // Version 1 of A references nothing and never changes: pinning it is no cycle.
    const pinnedSelf = await publish(service, a, completion(`A v2 keeps @@@${a}@version_number:1@@@`));
    expect(pinnedSelf.version_number).toBe(2);
    expect((await get(a, {}, noCache)).body.prompt_template.content[0].text).toBe('A v2 keeps A alone');
  });

  it('answers 422 on read for a cycle that concurrent publishes created; the raw text still reads', async () => {
    const { putVersion } = await import('#shared/prompts/repository.ts');
    const a = uniqueName('race-cycle-a');
    const b = uniqueName('race-cycle-b');
    const first = await publish(service, a, completion('A alone'));
    await publish(service, b, completion(`B uses @@@${a}@@@`));
    // What a publish of A -> B racing the publish of B -> A leaves: each checked the other's old version.
    await putVersion(service.workspaceId, {
      id: 20_000_000 + first.id,
      prompt_id: first.id,
      prompt_name: a,
      number: 2,
      prompt_template: completion(`A uses @@@${b}@@@`) as never,
      metadata: null,
      commit_message: null,
      created_at: Date.now(),
    });
    for (const name of [a, b]) {
      const read = await get(name, {}, noCache);
      expect(read.status).toBe(422);
      expect(read.body.message).toMatch(/snippet cycle/);
      expect(read.body.detail[0].loc).toEqual(['query', 'resolve_snippets']);
      expect((await get(name, { resolve_snippets: false }, noCache)).status).toBe(200);
    }
    // A publish that breaks the cycle makes both readable again.
    await publish(service, a, completion('A alone again'));
    expect((await get(b, {}, noCache)).body.prompt_template.content[0].text).toBe('B uses A alone again');
  });

  it('rejects a chat template used as a snippet', async () => {
    const chatName = uniqueName('chatty');
    await publish(service, chatName);
    const response = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(uniqueName('uses-chat'), completion(`@@@${chatName}@@@`)),
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(/only completion templates/);
  });
});

describe('include_llm_kwargs', () => {
  it('adds the provider request body for OpenAI and Anthropic', async () => {
    const openai = uniqueName('kw-openai');
    await publish(service, openai, chat('Be brief.', 'What is {topic}?'));
    const response = await get(openai, { include_llm_kwargs: true });
    expect(response.status).toBe(200);
    expect(response.body.llm_kwargs).toMatchObject({
      model: 'gpt-4o',
      temperature: 0.2,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'What is {topic}?' }] },
      ],
    });

    const anthropic = uniqueName('kw-anthropic');
    await service.call('POST', '/rest/prompt-templates', {
      body: {
        ...publishBody(anthropic, chat('Be brief.', 'Hi')),
        prompt_version: {
          prompt_template: chat('Be brief.', 'Hi'),
          metadata: { model: { provider: 'anthropic', name: 'claude-sonnet-4', parameters: {} } },
        },
      },
    });
    const lifted = (await get(anthropic, { include_llm_kwargs: true })).body.llm_kwargs;
    expect(lifted.system).toBeDefined();
    expect(lifted.max_tokens).toEqual(expect.any(Number));
    expect(lifted.messages.every((m: { role: string }) => m.role !== 'system')).toBe(true);
  });

  it('answers 422 for a template without model metadata', async () => {
    const name = uniqueName('no-model');
    await service.call('POST', '/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: name }, prompt_version: { prompt_template: completion('x') } },
    });
    expect((await get(name)).status).toBe(200);
    const response = await get(name, { include_llm_kwargs: true });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['query', 'include_llm_kwargs']);
  });
});

describe('the default cache', () => {
  it('serves a cached answer until a publish through this container or Cache-Control: no-cache', async () => {
    const { putVersion } = await import('#shared/prompts/repository.ts');
    const name = uniqueName('cached');
    const first = await publish(service, name, completion('one'));
    expect((await get(name)).body.version).toBe(1);

    // A version written behind the service's back (as another container would): the cache still answers v1.
    await putVersion(service.workspaceId, {
      id: 10_000_000 + first.id,
      prompt_id: first.id,
      prompt_name: name,
      number: 2,
      prompt_template: completion('two') as never,
      metadata: null,
      commit_message: null,
      created_at: Date.now(),
    });
    expect((await get(name)).body.version).toBe(1);
    expect((await get(name, {}, noCache)).body.version).toBe(2);
    // The bypassing read refreshed the entry.
    expect((await get(name)).body.version).toBe(2);

    // Every query parameter is part of the key.
    expect((await get(name, { resolve_snippets: false })).body.version).toBe(2);

    // A publish through the service drops the template's entries at once.
    await publish(service, name, completion('three'));
    expect((await get(name)).body.version).toBe(3);
    expect((await get(name, { resolve_snippets: false })).body.version).toBe(3);
  });

  it('drops the entries of a template when one of its labels moves', async () => {
    const name = uniqueName('cached-label');
    await publish(service, name, completion('one'), { release_labels: ['prod'] });
    await publish(service, name, completion('two'));
    expect((await get(name, { label: 'prod' })).body.version).toBe(1);
    const labels = await service.call('GET', `/prompt-templates/${name}/labels`);
    const prod = labels.body.release_labels[0].release_label_id;
    await service.call('PATCH', `/prompt-labels/${prod}`, { body: { prompt_version_number: 2 } });
    expect((await get(name, { label: 'prod' })).body.version).toBe(2);
  });

  it('drops the entries of templates that expanded a snippet when the snippet is published', async () => {
    const snippet = uniqueName('cached-snippet');
    const name = uniqueName('cached-user');
    await publish(service, snippet, completion('old'));
    await publish(service, name, completion(`text: @@@${snippet}@@@`));
    expect((await get(name)).body.prompt_template.content[0].text).toBe('text: old');
    await publish(service, snippet, completion('new'));
    expect((await get(name)).body.prompt_template.content[0].text).toBe('text: new');
  });
});

describe('GET /prompt-templates', () => {
  let key: string;
  const call = (query: string) => service.call('GET', `/prompt-templates${query}`, { key });
  const names = (body: { items: { prompt_name: string }[] }) => body.items.map((item) => item.prompt_name);

  beforeAll(async () => {
    key = await freshWorkspaceKey('list');
    await publish(
      service,
      'alpha-support',
      chat('a'),
      {
        prompt_template: { prompt_name: 'alpha-support', tags: ['support', 'en'] },
        release_labels: ['prod'],
      },
      key,
    );
    await publish(
      service,
      'beta-sales',
      completion('b'),
      {
        prompt_template: { prompt_name: 'beta-sales', tags: ['sales', 'en'] },
        external_ids: [{ source: 'crm', external_id: 'B-1' }],
      },
      key,
    );
    await publish(
      service,
      'gamma-support',
      chat('g'),
      { prompt_template: { prompt_name: 'gamma-support', tags: ['support'] } },
      key,
    );
    await publish(
      service,
      'alpha-support',
      chat('a2'),
      { prompt_template: { prompt_name: 'alpha-support', tags: ['support', 'en'] } },
      key,
    );
  });

  it('lists every template with its latest version, newest first, with page arithmetic', async () => {
    const response = await call('');
    expect(response.status).toBe(200);
    expect(names(response.body)).toEqual(['gamma-support', 'beta-sales', 'alpha-support']);
    expect(response.body).toMatchObject({
      page: 1,
      per_page: 30,
      pages: 1,
      total: 3,
      has_next: false,
      has_prev: false,
      next_num: null,
      prev_num: null,
    });
    const alpha = response.body.items.find(
      (item: { prompt_name: string }) => item.prompt_name === 'alpha-support',
    );
    expect(alpha).toMatchObject({
      version: 2,
      tags: ['support', 'en'],
      release_labels: ['prod'],
      external_ids: [],
    });
    expect(alpha.prompt_template.messages[0].content[0].text).toBe('a2');
    const beta = response.body.items.find(
      (item: { prompt_name: string }) => item.prompt_name === 'beta-sales',
    );
    expect(beta.external_ids).toEqual([{ source: 'crm', external_id: 'B-1' }]);
  });

  it('pages', async () => {
    const second = await call('?per_page=2&page=2&sort_by=name&sort_order=asc');
    expect(names(second.body)).toEqual(['gamma-support']);
    expect(second.body).toMatchObject({
      page: 2,
      per_page: 2,
      pages: 2,
      total: 3,
      has_prev: true,
      prev_num: 1,
      has_next: false,
    });
  });

  it('filters by name, tags, label and external id', async () => {
    expect(names((await call('?name=SUPPORT&sort_by=name&sort_order=asc')).body)).toEqual([
      'alpha-support',
      'gamma-support',
    ]);
    expect(names((await call('?tags=support&tags=en')).body)).toEqual(['alpha-support']);
    expect(names((await call('?tags=en&sort_by=name&sort_order=asc')).body)).toEqual([
      'alpha-support',
      'beta-sales',
    ]);
    expect(names((await call('?label=prod')).body)).toEqual(['alpha-support']);
    expect(names((await call('?external_source=crm&external_id=B-1')).body)).toEqual(['beta-sales']);
    expect(names((await call('?external_source=crm&external_id=nope')).body)).toEqual([]);
    expect((await call('?created_after=2999-01-01T00:00:00Z')).body.total).toBe(0);
    expect((await call('?updated_before=2000-01-01')).body.total).toBe(0);
  });

  it.each([
    ['external_source without external_id', '?external_source=crm'],
    ['external_id without external_source', '?external_id=B-1'],
    ['per_page over 100', '?per_page=101'],
    ['page 0', '?page=0'],
    ['an unknown sort field', '?sort_by=size'],
    ['a malformed date', '?created_after=yesterday'],
  ])('rejects %s with a 422', async (_, query) => {
    expect((await call(query)).status).toBe(422);
  });
});

import { PromptLayer } from 'promptlayer';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderedTemplateSchema } from '#shared/prompts/schemas.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, completion, OPENAI_MODEL, publish, uniqueName } from '#test/support/prompts.ts';

/**
 * `templates.get` of the official PromptLayer SDK (POST /prompt-templates/{identifier}) against the
 * local service: lookup, rendering of f-string and jinja2 templates, llm_kwargs with provider, model
 * and parameter overrides, warnings, errors, and the SDK's own client cache; then the error answers
 * over plain HTTP.
 */
let service: TestService;
let pl: PromptLayer;
beforeAll(async () => {
  service = await startTestService();
  pl = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
});
afterAll(() => service?.stop());
afterEach(() => {
  vi.restoreAllMocks();
});

const text = (value: string) => ({ type: 'text', text: value });

/** Publishes through the SDK, as a PromptLayer user would. */
async function sdkPublish(
  name: string,
  template: Record<string, unknown>,
  extra: { release_labels?: string[]; metadata?: Record<string, unknown> } = {},
) {
  return pl.templates.publish({
    prompt_name: name,
    prompt_template: template,
    metadata: { model: OPENAI_MODEL },
    commit_message: 'sdk',
    ...extra,
  } as Parameters<PromptLayer['templates']['publish']>[0]);
}

/** The SDK's warnings, kept out of the test output. */
const quietWarnings = () => vi.spyOn(console, 'warn').mockImplementation(() => undefined);

describe('templates.get through the SDK', () => {
  it('reads the latest version unrendered, with llm_kwargs, when no variables are given', async () => {
    const name = uniqueName('sdk-plain');
    await sdkPublish(name, chat('You are {role}.', 'Question: {question}'));
    const template = await pl.templates.get(name);
    expect(renderedTemplateSchema.parse(template)).toBeTruthy();
    expect(template).toMatchObject({
      prompt_name: name,
      version: 1,
      prompt_template: { type: 'chat', messages: [{ content: [text('You are {role}.')] }, {}] },
      llm_kwargs: {
        model: 'gpt-4o',
        temperature: 0.2,
        messages: [
          { role: 'system', content: [text('You are {role}.')] },
          { role: 'user', content: [text('Question: {question}')] },
        ],
      },
      warning: null,
    });
  });

  it('renders f-string variables in the template and in llm_kwargs, braces escaped', async () => {
    const name = uniqueName('sdk-fstring');
    await sdkPublish(name, chat('You are {role}. Answer as {{"answer": ...}}.', '{question}'));
    const template = await pl.templates.get(name, {
      input_variables: { role: 'a pilot', question: 'Why fly?' },
    });
    const expected = [
      { role: 'system', content: [text('You are a pilot. Answer as {"answer": ...}.')] },
      { role: 'user', content: [text('Why fly?')] },
    ];
    expect(template?.prompt_template).toMatchObject({ messages: expected });
    expect(template?.llm_kwargs).toMatchObject({ messages: expected });
    expect((template as { warning?: unknown }).warning).toBeNull();
  });

  it('renders jinja2 templates', async () => {
    const name = uniqueName('sdk-jinja');
    await sdkPublish(name, {
      type: 'completion',
      template_format: 'jinja2',
      content: [
        text('{% for p in products %}- {{ p.name | title }}: {{ p.price }}\n{% endfor %}Total {{ total }}'),
      ],
    });
    const template = await pl.templates.get(name, {
      input_variables: {
        products: [
          { name: 'red pen', price: 2 },
          { name: 'ink', price: 5 },
        ],
        total: 7,
      },
    });
    expect(template?.prompt_template).toMatchObject({
      content: [text('- Red Pen: 2\n- Ink: 5\nTotal 7')],
    });
    expect(template?.llm_kwargs).toMatchObject({ prompt: '- Red Pen: 2\n- Ink: 5\nTotal 7' });
  });

  it('selects a version or a label', async () => {
    const name = uniqueName('sdk-select');
    await sdkPublish(name, completion('one {x}'), { release_labels: ['prod'] });
    await sdkPublish(name, completion('two {x}'));
    const vars = { input_variables: { x: 'X' } };
    expect((await pl.templates.get(name, { ...vars, version: 1 }))?.prompt_template).toMatchObject({
      content: [text('one X')],
    });
    expect(await pl.templates.get(name, { ...vars, label: 'prod' })).toMatchObject({ version: 1 });
    expect(await pl.templates.get(name, vars)).toMatchObject({
      version: 2,
      prompt_template: { content: [text('two X')] },
    });
  });

  it('reads by id', async () => {
    const name = uniqueName('sdk-id');
    const published = await sdkPublish(name, completion('by id {x}'));
    const template = await pl.templates.get(String(published.id), { input_variables: { x: '!' } });
    expect(template).toMatchObject({ prompt_name: name, prompt_template: { content: [text('by id !')] } });
  });

  it('builds llm_kwargs for the provider and model the call names, with parameter overrides', async () => {
    const name = uniqueName('sdk-provider');
    await sdkPublish(name, chat('Be {tone}.', 'Hi'));
    const template = await pl.templates.get(name, {
      input_variables: { tone: 'brief' },
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      model_parameter_overrides: { maxOutputTokens: 300, topK: 20 },
      metadata_filters: { user_tier: 'gold' },
    });
    expect(template?.llm_kwargs).toEqual({
      model: 'claude-sonnet-4-5',
      temperature: 0.2,
      max_tokens: 300,
      top_k: 20,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [text('Hi')] }],
    });
    expect(template?.metadata?.model).toMatchObject({ provider: 'anthropic', name: 'claude-sonnet-4-5' });

    const openai = await pl.templates.get(name, { model_parameter_overrides: { maxOutputTokens: 99 } });
    expect(openai?.llm_kwargs).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 99 });
    expect(openai?.metadata?.model).toEqual(OPENAI_MODEL);
  });

  it('answers missing variables with a warning, which the SDK prints', async () => {
    const warn = quietWarnings();
    const name = uniqueName('sdk-missing');
    await sdkPublish(name, chat('You are {role}.', '{question} {detail}'));
    const template = await pl.templates.get(name, { input_variables: { role: 'a guide' } });
    expect(template?.prompt_template).toMatchObject({
      messages: [{ content: [text('You are a guide.')] }, { content: [text('{question} {detail}')] }],
    });
    expect((template as { warning?: unknown }).warning).toBe('Missing input variables: question, detail');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Missing input variables: question, detail'));
  });

  it('throws the service message for an unknown template', async () => {
    await expect(pl.templates.get(uniqueName('sdk-nothing'))).rejects.toThrow(
      /^Prompt template sdk-nothing-.* not found$/,
    );
  });

  it('throws the service message for a template that cannot render', async () => {
    const name = uniqueName('sdk-broken');
    await sdkPublish(name, {
      type: 'completion',
      template_format: 'jinja2',
      content: [text('{% for x in %}')],
    });
    await expect(pl.templates.get(name, { input_variables: {} })).rejects.toThrow(/jinja2 syntax error/);
  });

  it('works with the SDK client cache: unrendered once, rendered locally for each call', async () => {
    const cached = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl, cacheTtlSeconds: 60 });
    const name = uniqueName('sdk-cache');
    await sdkPublish(name, chat('You are {role}.', '{question}'));
    const first = await cached.templates.get(name, {
      input_variables: { role: 'a cook', question: 'Salt?' },
    });
    expect(first?.prompt_template).toMatchObject({
      messages: [{ content: [text('You are a cook.')] }, { content: [text('Salt?')] }],
    });
    expect(first?.llm_kwargs).toMatchObject({
      messages: [{ content: [text('You are a cook.')] }, { content: [text('Salt?')] }],
    });
    // A new version is not seen while the client's entry is fresh: the SDK rendered its cached copy.
    await sdkPublish(name, chat('Changed {role}.', '{question}'));
    const second = await cached.templates.get(name, {
      input_variables: { role: 'a baker', question: 'Flour?' },
    });
    expect(second).toMatchObject({ version: 1 });
    expect(second?.prompt_template).toMatchObject({
      messages: [{ content: [text('You are a baker.')] }, { content: [text('Flour?')] }],
    });
  });

  it('serves the SDK client cache jinja2 chat templates it can render itself', async () => {
    const cached = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl, cacheTtlSeconds: 60 });
    const name = uniqueName('sdk-cache-jinja');
    await sdkPublish(name, { ...chat('{{ a }} and {{ b }}', '{{ b }}'), template_format: 'jinja2' });
    const template = await cached.templates.get(name, { input_variables: { a: 'A', b: 'B' } });
    expect(template?.prompt_template).toMatchObject({
      messages: [{ content: [text('A and B')] }, { content: [text('B')] }],
    });
  });
});

describe('POST /prompt-templates/{identifier} over HTTP', () => {
  const post = (identifier: string, body?: unknown, headers?: Record<string, string>) =>
    service.call('POST', `/prompt-templates/${encodeURIComponent(identifier)}`, { body, headers });

  it('takes no body, a null body or an empty object alike', async () => {
    const name = uniqueName('http-body');
    await publish(service, name, completion('{x}'));
    for (const options of [{}, { rawBody: 'null' }, { body: {} }]) {
      const response = await service.call('POST', `/prompt-templates/${name}`, options);
      expect(response.status).toBe(200);
      expect(response.body.prompt_template.content).toEqual([text('{x}')]);
    }
  });

  it('shares the GET cache, and Cache-Control: no-cache reads afresh', async () => {
    const name = uniqueName('http-cache');
    await publish(service, name, completion('v1 {x}'));
    expect((await post(name, { input_variables: { x: 1 } })).body.version).toBe(1);
    // A publish in this process drops the entry; a bypass reads afresh whatever the cache holds.
    await publish(service, name, completion('v2 {x}'));
    const fresh = await post(name, { input_variables: { x: 2 } }, { 'Cache-Control': 'no-cache' });
    expect(fresh.body).toMatchObject({ version: 2, prompt_template: { content: [text('v2 2')] } });
  });

  it('answers the errors of the GET', async () => {
    const name = uniqueName('http-errors');
    await publish(service, name, completion('x'), { release_labels: ['prod'] });
    const both = await service.rejected('POST', `/prompt-templates/${name}`, {
      body: { version: 1, label: 'prod' },
    });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ error: 'validation_error', detail: [{ loc: ['body', 'label'] }] });
    expect(
      (await service.rejected('POST', `/prompt-templates/${name}`, { body: { version: 9 } })).body,
    ).toEqual({
      success: false,
      message: `Version 9 of prompt template ${name} not found`,
      error: 'not_found',
    });
    expect(
      (await service.rejected('POST', `/prompt-templates/${name}`, { body: { label: 'beta' } })).status,
    ).toBe(404);
    expect((await service.rejected('POST', `/prompt-templates/${name}`, { key: null })).status).toBe(401);
    const other = await service.otherWorkspaceKey(`render-${Date.now()}`);
    expect(
      (await service.rejected('POST', `/prompt-templates/${name}`, { key: other, body: {} })).status,
    ).toBe(404);
  });

  it('refuses bad bodies with a 422', async () => {
    const name = uniqueName('http-bad');
    await publish(service, name, completion('x'));
    for (const [body, loc] of [
      [{ input_variables: 'x' }, ['body', 'input_variables']],
      [{ version: 0 }, ['body', 'version']],
      [{ model_parameter_overrides: [1] }, ['body', 'model_parameter_overrides']],
      [{ provider: 'mistral' }, ['body', 'provider']],
    ] as const) {
      const response = await service.rejected('POST', `/prompt-templates/${name}`, { body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
    expect(
      (await service.rejected('POST', `/prompt-templates/${name}`, { body: { workspace_id: 999_999 } }))
        .status,
    ).toBe(403);
  });

  it('answers a template that cannot render, or passes a bound, with a 422 naming the problem', async () => {
    const name = uniqueName('http-jinja');
    for (const [source, message] of [
      ['Hello {{ name ', /jinja2 syntax error/],
      ['{% for i in range(100000000) %}x{% endfor %}', /range\(\) of more than 100,000 items/],
      // 100,000 steps take most of the 500 ms time bound on a loaded machine: whichever bound trips first.
      [
        '{% for i in range(10000) %}{% for j in range(10000) %}x{% endfor %}{% endfor %}',
        /evaluation steps|rendering took more than 500 ms/,
      ],
      ['{{ range.constructor("return process.env")() }}', /Cannot call something that is not a function/],
    ] as const) {
      await publish(service, name, {
        type: 'completion',
        template_format: 'jinja2',
        content: [text(source)],
      });
      const response = await service.rejected('POST', `/prompt-templates/${name}`, {
        body: { input_variables: { name: 'x' } },
        headers: { 'Cache-Control': 'no-cache' },
      });
      expect(response.status, source).toBe(422);
      expect(response.body.error).toBe('template_render_error');
      expect(response.body.message).toMatch(message);
      expect(response.body.detail[0].loc).toEqual(['prompt_template', 'content', 0, 'text']);
    }
  });

  it('keeps the template readable when its stored provider has no llm_kwargs shape', async () => {
    const name = uniqueName('http-mistral');
    await publish(service, name, completion('{x}'), {
      prompt_version: {
        prompt_template: completion('{x}'),
        metadata: { model: { provider: 'mistral', name: 'mistral-large' } },
      },
    });
    const response = await post(name, { input_variables: { x: 'y' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ llm_kwargs: null, prompt_template: { content: [text('y')] } });
    expect(response.body.warning).toMatch(
      /^llm_kwargs are not available for this template: provider "mistral"/,
    );
  });

  it('reads a variable of any name, __proto__ and constructor included', async () => {
    const name = uniqueName('http-proto');
    await publish(service, name, completion('{__proto__} {constructor}'));
    const response = await service.call('POST', `/prompt-templates/${name}`, {
      rawBody: '{"input_variables": {"__proto__": "P", "constructor": "C"}}',
    });
    expect(response.body).toMatchObject({ prompt_template: { content: [text('P C')] }, warning: null });
  });
});

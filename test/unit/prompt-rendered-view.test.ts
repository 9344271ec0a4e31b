import { describe, expect, it } from 'vitest';
import { renderTemplateView } from '#shared/prompts/rendered.ts';
import type { RawTemplateView } from '#shared/prompts/views.ts';

const raw = (model: Record<string, unknown> | null): RawTemplateView => ({
  success: true,
  id: 1,
  prompt_name: 'p',
  version: 3,
  workspace_id: 7,
  prompt_template: {
    type: 'chat',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi {name}' }] }],
  },
  metadata: model ? { model, team: 'a' } : null,
  commit_message: null,
  tags: [],
  created_at: '2026-01-01T00:00:00.000Z',
  snippets: [],
});

const anthropic = { provider: 'anthropic', name: 'claude-sonnet-4-5', parameters: { max_tokens: 50 } };

describe('renderTemplateView', () => {
  it('renders only when variables are given and rendering is not skipped', async () => {
    const view = raw(null);
    expect((await renderTemplateView(view, {}, null)).prompt_template).toEqual(view.prompt_template);
    expect(
      (await renderTemplateView(view, { skip_input_variable_rendering: true }, { name: 'A' }))
        .prompt_template,
    ).toEqual(view.prompt_template);
    expect((await renderTemplateView(view, {}, { name: 'A' })).prompt_template).toMatchObject({
      messages: [{ content: [{ text: 'Hi A' }] }],
    });
    expect(await renderTemplateView(view, {}, {})).toMatchObject({
      warning: 'Missing input variables: name',
      llm_kwargs: null,
    });
  });

  it('names at most 50 missing variables in the warning', async () => {
    const view = raw(null);
    const names = Array.from({ length: 60 }, (_, i) => `v${i}`);
    view.prompt_template = {
      type: 'completion',
      content: [{ type: 'text', text: names.map((n) => `{${n}}`).join(' ') }],
    };
    expect((await renderTemplateView(view, {}, {})).warning).toBe(
      `Missing input variables: ${names.slice(0, 50).join(', ')} and 10 more`,
    );
  });

  it('describes in metadata.model the provider and model llm_kwargs were built for', async () => {
    const toOpenAi = await renderTemplateView(raw(anthropic), { provider: 'openai', model: 'gpt-4o' }, null);
    expect(toOpenAi.metadata).toEqual({
      model: { ...anthropic, provider: 'openai', name: 'gpt-4o', api_type: 'chat-completions' },
      team: 'a',
    });
    expect(toOpenAi.llm_kwargs).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 50,
      messages: [{ role: 'user' }],
    });

    const responses = { provider: 'openai', name: 'gpt-4o', api_type: 'responses' };
    const azure = await renderTemplateView(raw(responses), { provider: 'azure-openai' }, null);
    expect(azure.metadata?.model).toMatchObject({ provider: 'azure-openai', api_type: 'responses' });
    expect(azure.llm_kwargs).toHaveProperty('input');

    const modelOnly = await renderTemplateView(raw(anthropic), { model: 'claude-haiku-4-5' }, null);
    expect(modelOnly.metadata?.model).toEqual({ ...anthropic, name: 'claude-haiku-4-5' });
  });

  it('builds llm_kwargs for a template without a model only when the call names provider and model', async () => {
    expect((await renderTemplateView(raw(null), { provider: 'anthropic' }, null)).llm_kwargs).toBeNull();
    expect(
      (await renderTemplateView(raw(null), { provider: 'anthropic', model: 'claude-sonnet-4-5' }, null))
        .llm_kwargs,
    ).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1024 });
  });

  it('leaves the raw answer it was given as it was (it is the cached one)', async () => {
    const view = raw(anthropic);
    const before = structuredClone(view);
    await renderTemplateView(
      view,
      { provider: 'openai', model_parameter_overrides: { temperature: 1 } },
      { name: 'A' },
    );
    expect(view).toEqual(before);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, completion, OPENAI_MODEL, publish, uniqueName } from '#test/support/prompts.ts';

/** PATCH /rest/prompt-templates/{identifier} through the local gateway: a new version from a base version. */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const patch = (identifier: string | number, body: unknown) =>
  service.call('PATCH', `/rest/prompt-templates/${encodeURIComponent(identifier)}`, { body });
const read = async (name: string, query: Record<string, string | number> = {}) =>
  (await service.call('GET', `/prompt-templates/${name}`, { query: { resolve_snippets: 'false', ...query } }))
    .body;
const text = (content: string) => [{ type: 'text', text: content }];

describe('PATCH /rest/prompt-templates/{identifier}', () => {
  it('patches one message by index from the latest: a new version (201) keeping the rest, tags and labels', async () => {
    const name = uniqueName('patch');
    const v1 = await publish(service, name, chat('Be kind.'), {
      prompt_template: { prompt_name: name, tags: ['support'] },
      release_labels: ['prod'],
    });
    const answer = await patch(name, {
      messages: { '0': { role: 'system', content: text('Be brief.') } },
      commit_message: 'Shorter system message',
      release_labels: ['staging'],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({
      id: v1.id,
      prompt_name: name,
      version_number: 2,
      tags: ['support'],
      release_labels: ['staging'],
      commit_message: 'Shorter system message',
    });
    const latest = await read(name);
    expect(
      latest.prompt_template.messages.map((m: { content: { text: string }[] }) => m.content[0]!.text),
    ).toEqual(['Be brief.', '{question}']);
    expect(latest.tags).toEqual(['support']);
    // The base is untouched, and prod stays on it.
    expect((await read(name, { label: 'prod' })).prompt_template.messages[0].content[0].text).toBe(
      'Be kind.',
    );
  });

  it('patches from a label or a version, replaces lists, merges model parameters and sets response_format', async () => {
    const name = uniqueName('patch-base');
    await publish(service, name, chat('First.'), { release_labels: ['prod'] });
    await publish(service, name, chat('Second.'));
    const tool = {
      type: 'function',
      function: { name: 'lookup', parameters: { type: 'object', properties: {} } },
    };
    const answer = await patch(name, {
      label: 'prod',
      messages: [{ role: 'user', content: text('Only me.') }],
      tools: [tool],
      tool_choice: 'auto',
      model_parameters: { max_tokens: 500 },
      response_format: { type: 'json_object' },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.version_number).toBe(3);
    const patched = await read(name);
    expect(patched.prompt_template).toMatchObject({
      messages: [{ role: 'user', content: text('Only me.') }],
      tools: [tool],
      tool_choice: 'auto',
    });
    expect(patched.metadata.model.parameters).toEqual({
      ...OPENAI_MODEL.parameters,
      max_tokens: 500,
      response_format: { type: 'json_object' },
    });

    // From version 3: tools removed with null, response_format removed with null, by template id.
    const removed = await patch(answer.body.id, { version: 3, tools: null, response_format: null });
    expect(removed.status, JSON.stringify(removed.body)).toBe(201);
    const after = await read(name);
    expect(after.prompt_template.tools ?? null).toBeNull();
    expect(after.metadata.model.parameters).toEqual({ ...OPENAI_MODEL.parameters, max_tokens: 500 });
  });

  it('patches completion content by index', async () => {
    const name = uniqueName('patch-completion');
    await publish(service, name, completion('Hello'));
    expect((await patch(name, { content: { '0': { type: 'text', text: 'Goodbye' } } })).status).toBe(201);
    expect((await read(name)).prompt_template.content).toEqual(text('Goodbye'));
  });

  it('refuses changes that do not fit the base (400), bad bodies (422), unknown bases (404), writing nothing', async () => {
    const name = uniqueName('patch-refused');
    await publish(service, name, chat('Keep.'));
    const refusals: [unknown, number][] = [
      [{ messages: { '2': { role: 'user', content: text('x') } } }, 400],
      [{ messages: { first: { role: 'user', content: text('x') } } }, 400],
      [{ content: [{ type: 'text', text: 'x' }] }, 400],
      [
        { response_format: { type: 'json_object' }, model_parameters: { response_format: { type: 'text' } } },
        400,
      ],
      [{ version: 1, label: 'prod' }, 422],
      [{ messages: [{ role: 'nobody', content: text('x') }] }, 422],
      [{ commit_message: 'x'.repeat(73) }, 422],
      [{ version: 9 }, 404],
      [{ label: 'missing' }, 404],
    ];
    for (const [body, status] of refusals) {
      const answer = await service.rejected('PATCH', `/rest/prompt-templates/${name}`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(status);
    }
    expect(
      (await service.rejected('PATCH', `/rest/prompt-templates/${uniqueName('none')}`, { body: {} })).status,
    ).toBe(404);
    const readOnly = await service.keyWithPermissions({ prompts: 'read' });
    expect(
      (await service.rejected('PATCH', `/rest/prompt-templates/${name}`, { body: {}, key: readOnly })).status,
    ).toBe(403);
    const otherKey = await service.otherWorkspaceKey('patch-other');
    expect(
      (await service.rejected('PATCH', `/rest/prompt-templates/${name}`, { body: {}, key: otherKey })).status,
    ).toBe(404);
    expect((await read(name)).version).toBe(1);
  });

  it('refuses model parameters on a base version without a model (400)', async () => {
    const name = uniqueName('patch-no-model');
    const created = await service.call('POST', '/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: name }, prompt_version: { prompt_template: completion('x') } },
    });
    expect(created.status).toBe(200);
    const answer = await service.rejected('PATCH', `/rest/prompt-templates/${name}`, {
      body: { model_parameters: { temperature: 1 } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_patch');
  });
});

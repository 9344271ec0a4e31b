import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, publish, publishBody, uniqueName } from '#test/support/prompts.ts';
import { runToResults } from '#test/support/workflows.ts';

/**
 * Prompt templates that reference registry tools in their `tools` (`{"type": "registry",
 * "tool_registry_id" | "name", "version" | "label"}`), through the local gateway: checked at publish,
 * stored as given, expanded at every read for use (GET, the SDK's templates.get, PROMPT_TEMPLATE
 * nodes) into the version the reference resolves to now, and into each provider's tool shape in
 * llm_kwargs.
 */
const ENV_NAMES = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'] as const;
let service: TestService;
let stub: LlmStub;
beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
  process.env.OPENAI_API_KEY = 'sk-tool-refs-openai-0001';
  process.env.OPENAI_BASE_URL = stub.openaiBaseUrl;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-tool-refs-0002';
  process.env.ANTHROPIC_BASE_URL = stub.anthropicBaseUrl;
});
afterAll(async () => {
  for (const name of ENV_NAMES) delete process.env[name];
  await Promise.all([service?.stop(), stub?.close()]);
});

const TOOLS = '/api/public/v2/tool-registry';
const params = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
const definition = (description: string, fn = 'get_weather') => ({
  name: fn,
  description,
  parameters: params,
});

/** A tool (its function `fn`) at version 1 ("v1"); `more` versions follow, each with its labels. */
async function createTool(
  more: { description: string; release_labels?: string[] }[] = [],
  key?: string,
  fn = 'get_weather',
) {
  const name = uniqueName('weather');
  const created = await service.call('POST', TOOLS, {
    body: { name, tool_definition: definition('v1', fn) },
    key,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  for (const version of more) await addVersion(name, version.description, version.release_labels, key, fn);
  return { id: created.body.tool_registry.id as number, name };
}
async function addVersion(
  name: string,
  description: string,
  release_labels: string[] = [],
  key?: string,
  fn = 'get_weather',
) {
  const answer = await service.call('POST', `${TOOLS}/${name}/versions`, {
    body: { tool_definition: definition(description, fn), release_labels },
    key,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

const withTools = (tools: unknown[]) => ({ ...chat('You forecast.'), tools });
const expandedTool = (description: string, fn?: string) => ({
  type: 'function',
  function: definition(description, fn),
});
const getTemplate = (name: string, query: Record<string, string | number | boolean> = {}) =>
  service.call('GET', `/prompt-templates/${encodeURIComponent(name)}`, { query });

describe('publishing a template that references registry tools', () => {
  it('stores the references as given and expands them at GET, prompt_template and llm_kwargs', async () => {
    // One tool per function: a template takes each function name once.
    const versions = [{ description: 'v2', release_labels: ['prod'] }, { description: 'v3' }];
    const [weather, forecast, wind] = await Promise.all([
      createTool(versions),
      createTool(versions, undefined, 'get_forecast'),
      createTool(versions, undefined, 'get_wind'),
    ]);
    const refs = [
      { type: 'registry', tool_registry_id: weather.id, label: 'prod' },
      { type: 'registry', name: forecast.name },
      { type: 'registry', name: wind.name, version: 1 },
    ];
    const name = uniqueName('forecast');
    const published = await publish(service, name, withTools(refs));
    expect(published.prompt_template.tools).toEqual(refs);

    const read = await getTemplate(name, { include_llm_kwargs: true });
    expect(read.status).toBe(200);
    expect(read.body.prompt_template.tools).toEqual([
      expandedTool('v2'),
      expandedTool('v3', 'get_forecast'),
      expandedTool('v1', 'get_wind'),
    ]);
    expect(read.body.llm_kwargs.tools).toEqual([
      { type: 'function', function: definition('v2') },
      { type: 'function', function: definition('v3', 'get_forecast') },
      { type: 'function', function: definition('v1', 'get_wind') },
    ]);
    expect(read.body.warning).toBeUndefined();

    // The list shows the version as stored.
    const list = await service.call('GET', '/prompt-templates', { query: { name } });
    expect(list.body.items[0].prompt_template.tools).toEqual(refs);
  });

  it('follows the label: a new version under it changes the expansion (cache included)', async () => {
    const tool = await createTool([{ description: 'v2', release_labels: ['prod'] }]);
    const name = uniqueName('forecast-label');
    await publish(service, name, withTools([{ type: 'registry', name: tool.name, label: 'prod' }]));
    const before = await getTemplate(name, { include_llm_kwargs: true });
    expect(before.body.llm_kwargs.tools[0].function.description).toBe('v2');

    await addVersion(tool.name, 'v3', ['prod']);
    const after = await getTemplate(name, { include_llm_kwargs: true });
    expect(after.body.llm_kwargs.tools[0].function.description).toBe('v3');
    expect(after.body.version).toBe(1);
  });

  it('reads the tool afresh with Cache-Control: no-cache after a version written by another container', async () => {
    const { publishVersion, readForPublish } = await import('#shared/versions/publish.ts');
    const { toolStore } = await import('#shared/tools/registry.ts');
    const tool = await createTool();
    const name = uniqueName('forecast-stale');
    await publish(service, name, withTools([{ type: 'registry', name: tool.name }]));
    expect((await getTemplate(name)).body.prompt_template.tools).toEqual([expandedTool('v1')]);

    // Version 2 written behind the service's back, as another container would: no invalidation here.
    const state = await readForPublish(toolStore, service.workspaceId, tool.name, 0);
    await publishVersion(toolStore, service.workspaceId, state, {
      name: tool.name,
      labels: [],
      externalIds: [],
      build: ({ id, entityId, number }) => ({
        id,
        tool_id: entityId,
        tool_name: tool.name,
        number,
        tool_definition: definition('v2'),
        commit_message: null,
        user_id: 1,
        created_at: Date.now(),
      }),
      newHead: { description: null, folder_id: null, user_id: 1, user_email: null },
      headUpdate: {},
    });
    const fresh = await service.call('GET', `/prompt-templates/${encodeURIComponent(name)}`, {
      headers: { 'Cache-Control': 'no-cache' },
    });
    expect(fresh.body.prompt_template.tools).toEqual([expandedTool('v2')]);
  });

  it('answers 422 at the reference for an unknown tool, version or label, and writes nothing', async () => {
    const tool = await createTool();
    const name = uniqueName('forecast-bad');
    const cases: [unknown, string][] = [
      [{ type: 'registry', name: uniqueName('nope') }, 'unknown registry tool'],
      [{ type: 'registry', tool_registry_id: 987_654_321 }, 'unknown registry tool 987654321'],
      [{ type: 'registry', name: tool.name, version: 2 }, `registry tool ${tool.name} has no version 2`],
      [{ type: 'registry', name: tool.name, label: 'prod' }, `registry tool ${tool.name} has no label prod`],
      [{ type: 'registry', tool_registry_id: tool.id, name: uniqueName('other') }, 'unknown registry tool'],
      [{ type: 'registry' }, 'needs tool_registry_id or name'],
    ];
    for (const [ref, message] of cases) {
      const answer = await service.rejected('POST', '/rest/prompt-templates', {
        body: publishBody(name, withTools([expandedTool('inline'), ref])),
      });
      expect(answer.status, JSON.stringify(ref)).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'prompt_version', 'prompt_template', 'tools', 1]);
      expect(answer.body.message).toContain(message);
    }
    expect((await getTemplate(name)).status).toBe(404);
  });

  it('answers 403 to a key that may not read tools, which cannot read a definition through a template', async () => {
    const tool = await createTool();
    const promptsOnly = await service.keyWithPermissions({ prompts: 'edit' });
    expect((await service.rejected('GET', `${TOOLS}/${tool.name}`, { key: promptsOnly })).status).toBe(403);
    const name = uniqueName('forecast-forbidden');
    const answer = await service.rejected('POST', '/rest/prompt-templates', {
      body: publishBody(name, withTools([{ type: 'registry', name: tool.name }])),
      key: promptsOnly,
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      success: false,
      error: 'forbidden',
      message: 'This API key may not read tools',
    });
    expect((await getTemplate(name)).status).toBe(404);
    // Inline tools need no tools permission.
    const inline = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(name, withTools([expandedTool('inline')])),
      key: promptsOnly,
    });
    expect(inline.status, JSON.stringify(inline.body)).toBe(200);
  });

  it('answers 422 to a tool referenced twice or named like an inline function, and writes nothing', async () => {
    const tool = await createTool([{ description: 'v2', release_labels: ['prod'] }]);
    const name = uniqueName('forecast-twice');
    // The loc is the reference's: the one that repeats a function name.
    const cases: [unknown[], number][] = [
      [
        [
          { type: 'registry', name: tool.name, label: 'prod' },
          { type: 'registry', tool_registry_id: tool.id, version: 1 },
        ],
        1,
      ],
      [[expandedTool('inline'), { type: 'registry', name: tool.name }], 1],
      [[{ type: 'registry', name: tool.name }, expandedTool('inline')], 0],
    ];
    for (const [tools, at] of cases) {
      const answer = await service.rejected('POST', '/rest/prompt-templates', {
        body: publishBody(name, withTools(tools)),
      });
      expect(answer.status, JSON.stringify(tools)).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'prompt_version', 'prompt_template', 'tools', at]);
      expect(answer.body.message).toContain('get_weather');
    }
  });

  it('answers 422 to 1,000 references before looking any up', async () => {
    const tool = await createTool();
    const refs = Array.from({ length: 1000 }, () => ({ type: 'registry', name: tool.name }));
    const answer = await service.rejected('POST', '/rest/prompt-templates', {
      body: publishBody(uniqueName('forecast-many'), withTools(refs)),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'prompt_version', 'prompt_template', 'tools']);
    expect(answer.body.message).toContain('at most 128 registry tool references');
  });

  it('answers 413 when the referenced definitions pass 350,000 bytes expanded, and writes nothing', async () => {
    // Each definition about 59 KB (the registry takes 64 KB): five fit, the sixth passes the bound.
    const properties = Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(350) }]),
    );
    const tools = await Promise.all(
      Array.from({ length: 7 }, async (_, i) => {
        const name = uniqueName('big-tool');
        const created = await service.call('POST', TOOLS, {
          body: { name, tool_definition: { name: `big_${i}`, parameters: { type: 'object', properties } } },
        });
        expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
        return name;
      }),
    );
    const name = uniqueName('forecast-big');
    const answer = await service.rejected('POST', '/rest/prompt-templates', {
      body: publishBody(name, withTools(tools.map((tool) => ({ type: 'registry', name: tool })))),
    });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toContain('at most 350000 bytes as JSON, expanded');
    expect((await getTemplate(name)).status).toBe(404);
  });

  it("does not resolve another workspace's tool, by name or by id", async () => {
    const tool = await createTool();
    const key = await service.otherWorkspaceKey(uniqueName('tool-refs-other'));
    for (const ref of [
      { type: 'registry', name: tool.name },
      { type: 'registry', tool_registry_id: tool.id },
    ]) {
      const answer = await service.rejected('POST', '/rest/prompt-templates', {
        body: publishBody(uniqueName('intruder'), withTools([ref])),
        key,
      });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toContain('unknown registry tool');
    }
  });
});

describe('templates.get through the SDK', () => {
  it('answers the expanded tools in the provider shape of the template model', async () => {
    const tool = await createTool([{ description: 'v2', release_labels: ['prod'] }]);
    const name = uniqueName('sdk-forecast');
    await publish(
      service,
      name,
      withTools([{ type: 'registry', tool_registry_id: tool.id, label: 'prod' }]),
      {
        prompt_version: {
          prompt_template: withTools([{ type: 'registry', tool_registry_id: tool.id, label: 'prod' }]),
          metadata: { model: { provider: 'anthropic', name: 'claude-sonnet-4-5' } },
        },
      },
    );
    const pl = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
    const template = await pl.templates.get(name, { input_variables: { question: 'Paris?' } });
    expect(template?.llm_kwargs?.tools).toEqual([
      { name: 'get_weather', description: 'v2', input_schema: params },
    ]);
    expect((template as { warning?: unknown }).warning).toBeNull();
  });
});

describe('PROMPT_TEMPLATE nodes', () => {
  it('send the expanded tools to the provider, for a registry template and an inline one', async () => {
    const tool = await createTool([{ description: 'v2', release_labels: ['prod'] }]);
    const promptName = uniqueName('node-forecast');
    await publish(service, promptName, withTools([{ type: 'registry', name: tool.name, label: 'prod' }]));
    const inline = {
      prompt_template: withTools([{ type: 'registry', name: tool.name, version: 1 }]),
      metadata: { model: { provider: 'anthropic', name: 'claude-sonnet-4-5' } },
    };
    const node = (name: string, configuration: Record<string, unknown>) => ({
      name,
      node_type: 'PROMPT_TEMPLATE',
      configuration: { ...configuration, prompt_template_variable_mappings: { question: 'q' } },
      dependencies: ['q'],
      is_output_node: true,
    });
    const workflow = uniqueName('tool-refs-flow');
    const created = await service.call('POST', '/rest/workflows', {
      body: {
        name: workflow,
        nodes: [
          node('registry', { template: { name: promptName } }),
          node('inline', { inline_template: inline }),
        ],
        required_input_variables: { q: 'string' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const before = stub.requests.length;
    const results = await runToResults(service, workflow, { q: 'Paris?' });
    expect(results.status).toBe(200);
    expect(results.body.registry.status, JSON.stringify(results.body)).toBe('SUCCESS');
    expect(results.body.inline.status, JSON.stringify(results.body)).toBe('SUCCESS');

    const sent = stub.requests.slice(before);
    const openai = sent.find((request) => request.path.includes('chat/completions'));
    const anthropic = sent.find((request) => request.path.includes('messages'));
    expect(openai?.body.tools).toEqual([{ type: 'function', function: definition('v2') }]);
    expect(anthropic?.body.tools).toEqual([{ name: 'get_weather', description: 'v1', input_schema: params }]);
  });
});

import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import type { ChatBlueprint, ModelMetadata } from '#shared/prompts/llm-kwargs/blueprint.ts';
import { renderLlmKwargs } from '#shared/prompts/llm-kwargs/build.ts';
import {
  expandToolReferences,
  parseToolReference,
  type ToolReference,
  type ToolResolver,
} from '#shared/prompts/tool-refs.ts';
import type { ToolVersionRecord } from '#shared/tools/registry.ts';

/**
 * Registry tool references in a template's `tools`: their form, and their expansion into the function
 * tool of the version they resolve to, then into each provider's tool shape by llm_kwargs.
 */
const cityParams = {
  type: 'object' as const,
  properties: { city: { type: 'string' } },
  required: ['city'],
};
const version = (number: number, description = `weather v${number}`): ToolVersionRecord => ({
  id: 100 + number,
  tool_id: 5,
  tool_name: 'weather-tool',
  number,
  tool_definition: { name: 'get_weather', description, parameters: cityParams },
  commit_message: null,
  user_id: 1,
  created_at: 0,
});

/** A registry of one tool (id 5, name weather-tool) with versions 1 and 2 and label prod on 1. */
const registry: ToolResolver = async (_workspaceId, ref: ToolReference) => {
  if (ref.tool_registry_id !== undefined && ref.tool_registry_id !== 5) return { missing: 'tool' };
  if (ref.name !== undefined && ref.name !== 'weather-tool') return { missing: 'tool' };
  if (ref.label !== undefined) {
    return ref.label === 'prod' ? { found: version(1) } : { missing: 'label', name: 'weather-tool' };
  }
  if (ref.version !== undefined) {
    return ref.version <= 2 ? { found: version(ref.version) } : { missing: 'version', name: 'weather-tool' };
  }
  return { found: version(2) };
};

const chat = (tools: unknown[], extra: Partial<ChatBlueprint> = {}): ChatBlueprint => ({
  type: 'chat',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
  tools: tools as ChatBlueprint['tools'],
  ...extra,
});
const byLabel = { type: 'registry', tool_registry_id: 5, label: 'prod' };
const expand = (blueprint: ChatBlueprint) => expandToolReferences(1, blueprint, registry);
const kwargs = async (blueprint: ChatBlueprint, model: ModelMetadata) =>
  renderLlmKwargs((await expand(blueprint)).blueprint, model);

describe('parseToolReference', () => {
  it('takes PromptLayer form (id and label), a name, a version, or the latest', () => {
    expect(parseToolReference(byLabel, ['tools', 0])).toEqual({ tool_registry_id: 5, label: 'prod' });
    expect(parseToolReference({ type: 'registry', name: 'weather-tool', version: 2 }, [])).toEqual({
      name: 'weather-tool',
      version: 2,
    });
    expect(parseToolReference({ type: 'registry', tool_registry_id: 5, label: null }, [])).toEqual({
      tool_registry_id: 5,
    });
  });

  it('refuses a reference without a tool, with version and label, or with a bad id (422 at loc)', () => {
    const loc = ['body', 'prompt_version', 'prompt_template', 'tools', 1];
    for (const bad of [
      { type: 'registry' },
      { type: 'registry', name: 'x', version: 1, label: 'prod' },
      { type: 'registry', tool_registry_id: 0 },
      { type: 'registry', tool_registry_id: '5' },
    ]) {
      const error = (() => {
        try {
          parseToolReference(bad, loc);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(422);
      expect((error as AppError).detail?.[0]?.loc).toEqual(loc);
    }
  });
});

describe('expandToolReferences', () => {
  it('replaces each reference by the function tool of its version, in place, keeping inline tools', async () => {
    const inline = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };
    const builtIn = { type: 'web_search', provider: 'openai', config: {} };
    const expanded = await expand(chat([inline, byLabel, builtIn]));
    expect(expanded.blueprint.type === 'chat' && expanded.blueprint.tools).toEqual([
      inline,
      { type: 'function', function: version(1).tool_definition },
      builtIn,
    ]);
    expect(expanded.toolNames).toEqual(['weather-tool']);
    expect(expanded.warnings).toEqual([]);
  });

  it('leaves out a reference that no longer resolves, with a warning naming it', async () => {
    const expanded = await expand(
      chat([
        { type: 'registry', tool_registry_id: 9 },
        byLabel,
        { type: 'registry', name: 'weather-tool', label: 'gone' },
        { type: 'registry' },
      ]),
    );
    expect(expanded.blueprint.type === 'chat' && expanded.blueprint.tools).toEqual([
      { type: 'function', function: version(1).tool_definition },
    ]);
    expect(expanded.warnings).toEqual([
      'registry tool #9 was left out: unknown registry tool 9',
      'registry tool weather-tool@label:gone was left out: registry tool weather-tool has no label gone',
      expect.stringMatching(/^registry tool reference tools\[3\] was left out: /),
    ]);
  });

  it('leaves out a reference whose function is already among the tools (providers refuse a repeat)', async () => {
    const inline = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
    const latest = { type: 'registry', name: 'weather-tool' };
    const expanded = await expand(chat([latest, { type: 'registry', tool_registry_id: 5, version: 1 }]));
    expect(expanded.blueprint.type === 'chat' && expanded.blueprint.tools).toEqual([
      { type: 'function', function: version(2).tool_definition },
    ]);
    expect(expanded.warnings).toEqual([
      "registry tool #5@version:1 was left out: its function get_weather is already another of the template's tools (each function name is taken once)",
    ]);
    const afterInline = await expand(chat([inline, latest]));
    expect(afterInline.blueprint.type === 'chat' && afterInline.blueprint.tools).toEqual([inline]);
    expect(afterInline.warnings).toHaveLength(1);
  });

  it('looks each distinct reference up once, and no more than 128 references', async () => {
    const lookups: ToolReference[] = [];
    const counting: ToolResolver = (workspaceId, ref) => {
      lookups.push(ref);
      return registry(workspaceId, ref);
    };
    const refs = Array.from({ length: 1000 }, (_, i) => ({
      type: 'registry',
      name: 'weather-tool',
      version: 1 + (i % 2),
    }));
    const expanded = await expandToolReferences(1, chat(refs), counting);
    expect(lookups).toHaveLength(2);
    expect(expanded.blueprint.type === 'chat' && expanded.blueprint.tools).toHaveLength(1);
    expect(expanded.warnings.filter((warning) => warning.endsWith('more than 128'))).toHaveLength(872);
  });

  it('leaves out the references past 350,000 bytes of expanded definitions, with a warning', async () => {
    const big: ToolResolver = async (_workspaceId, ref) => ({
      found: {
        ...version(1),
        tool_name: ref.name ?? '',
        tool_definition: { name: ref.name ?? '', description: 'x'.repeat(100_000), parameters: cityParams },
      },
    });
    const refs = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ type: 'registry', name }));
    const expanded = await expandToolReferences(1, chat(refs), big);
    expect(expanded.blueprint.type === 'chat' && expanded.blueprint.tools).toHaveLength(3);
    expect(expanded.warnings).toEqual(
      ['d', 'e'].map(
        (name) =>
          `registry tool ${name} was left out: a template's registry tools are at most 350000 bytes as JSON, expanded`,
      ),
    );
  });

  it('names every tool a reference found among its cache tags, the ones left out too', async () => {
    const missingLabel = await expand(chat([{ type: 'registry', name: 'weather-tool', label: 'gone' }]));
    expect(missingLabel.toolNames).toEqual(['weather-tool']);
    const unknown = await expand(chat([{ type: 'registry', name: 'nope' }]));
    expect(unknown.toolNames).toEqual([]);
  });

  it('answers a blueprint without references as it is, without looking anything up', async () => {
    const blueprint = chat([{ type: 'function', function: { name: 'f' } }]);
    const fail: ToolResolver = () => Promise.reject(new Error('no lookups expected'));
    expect(await expandToolReferences(1, blueprint, fail)).toEqual({
      blueprint,
      toolNames: [],
      warnings: [],
    });
    const completion = { type: 'completion' as const, content: [{ type: 'text', text: 'hi' }] };
    expect((await expandToolReferences(1, completion, fail)).blueprint).toBe(completion);
  });
});

describe('llm_kwargs of an expanded template, per provider', () => {
  const template = chat([byLabel], { tool_choice: { type: 'function', function: { name: 'get_weather' } } });
  const description = 'weather v1';

  it('OpenAI Chat Completions: tools [{type: function, function}]', async () => {
    const body = await kwargs(template, { provider: 'openai', name: 'gpt-4o' });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description, parameters: cityParams } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('OpenAI Responses: flat function tools', async () => {
    const body = await kwargs(template, { provider: 'openai', name: 'gpt-4.1', api_type: 'responses' });
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_weather', description, parameters: cityParams, strict: false },
    ]);
  });

  it('Anthropic: name, description, input_schema', async () => {
    const body = await kwargs(template, { provider: 'anthropic', name: 'claude-sonnet-4-5' });
    expect(body.tools).toEqual([{ name: 'get_weather', description, input_schema: cityParams }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it('Gemini: functionDeclarations with parametersJsonSchema', async () => {
    const body = await kwargs(template, { provider: 'google', name: 'gemini-2.5-flash' });
    expect(body.tools).toEqual([
      { functionDeclarations: [{ name: 'get_weather', description, parametersJsonSchema: cityParams }] },
    ]);
  });
});

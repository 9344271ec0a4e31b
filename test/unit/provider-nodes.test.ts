import { describe, expect, it } from 'vitest';
import { endpoint } from '#shared/workflows/nodes/endpoint.ts';
import { assertionList, llmAssertion, parseVerdict } from '#shared/workflows/nodes/llm-assertion.ts';
import { promptTemplate, templateVariables } from '#shared/workflows/nodes/prompt-template.ts';
import { NodeFailure } from '#shared/workflows/nodes/types.ts';

describe('PROMPT_TEMPLATE variables', () => {
  const inputs = { question: 'why?', answer_node: 'because', n: 3 };

  it('takes every input and dependency by its own name', () => {
    expect({ ...templateVariables({}, inputs) }).toEqual(inputs);
  });

  it('maps template variables to the inputs or nodes named, over equal names', () => {
    const variables = templateVariables({ question: 'answer_node', count: 'n' }, inputs);
    expect(variables.question).toBe('because');
    expect(variables.count).toBe(3);
    expect(variables.answer_node).toBe('because');
  });

  it('fails on a mapping to a name the node cannot read', () => {
    expect(() => templateVariables({ question: 'missing' }, inputs)).toThrow(NodeFailure);
    expect(() => templateVariables({ question: 'missing' }, inputs)).toThrow(/names missing/);
  });

  it('reads a variable called __proto__ as any other', () => {
    const raw = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(templateVariables({}, raw), '__proto__')?.value).toBe('x');
  });
});

describe('PROMPT_TEMPLATE configuration', () => {
  const valid = (config: unknown) => promptTemplate.config.safeParse(config).success;

  it.each([
    [{ template: { name: 'p' } }],
    [{ template: { prompt_name: 'p', version_number: 2 } }],
    [{ template: { name: 'p', label: 'prod' }, prompt_template_variable_mappings: { q: 'input' } }],
    [{ inline_template: { inline: true, prompt_template: { type: 'completion', content: [] } } }],
    [{ template: { name: 'p' }, engine: { provider: 'anthropic', model: 'claude-x' } }],
  ])('accepts %j', (config) => expect(valid(config)).toBe(true));

  it.each([
    [{}],
    [{ template: {} }],
    [{ template: { name: 'p', version_number: 1, label: 'prod' } }],
    [{ template: { name: 'p' }, inline_template: { prompt_template: { type: 'completion', content: [] } } }],
    [{ inline_template: { prompt_template: { type: 'nope' } } }],
    [{ template: { name: 'p' }, prompt_template_variable_mappings: { q: 3 } }],
    [{ template: { name: 'p' }, engine: { provider: 'gemini', model: 'x' } }],
    [{ template: { name: 'p', version_number: 0 } }],
  ])('refuses %j', (config) => expect(valid(config)).toBe(false));
});

describe('LLM_ASSERTION', () => {
  it.each([
    ['true', true],
    ['False.', false],
    ['  "Yes", it does', true],
    ['**no**', false],
    ['maybe', undefined],
    ['It is true', undefined],
  ])('reads %j as %s', (answer, verdict) => expect(parseVerdict(answer)).toBe(verdict));

  it('reads a JSON array of strings as several assertions, anything else as one', () => {
    expect(assertionList('["is polite", "is short"]')).toEqual(['is polite', 'is short']);
    expect(assertionList('is polite')).toBeUndefined();
    expect(assertionList('[1, 2]')).toBeUndefined();
    expect(() => assertionList('[]')).toThrow(NodeFailure);
  });

  it('needs a source and exactly one of prompt and prompt_source', () => {
    const valid = (config: unknown) => llmAssertion.config.safeParse(config).success;
    expect(valid({ source: 'a', prompt: 'is polite' })).toBe(true);
    expect(valid({ source: 'a', prompt: ['is polite', 'is short'] })).toBe(true);
    expect(valid({ source: 'a', prompt_source: 'b' })).toBe(true);
    expect(valid({ source: 'a' })).toBe(false);
    expect(valid({ source: 'a', prompt: 'x', prompt_source: 'b' })).toBe(false);
    expect(valid({ prompt: 'x' })).toBe(false);
  });
});

describe('ENDPOINT configuration', () => {
  const valid = (config: unknown) => endpoint.config.safeParse(config).success;

  it('takes an http(s) URL and custom headers', () => {
    expect(valid({ url: 'https://example.com/hook' })).toBe(true);
    expect(valid({ url: 'http://169.254.169.254/latest' })).toBe(true); // refused when it runs
    expect(valid({ url: 'https://example.com', headers: { Authorization: 'Bearer x' } })).toBe(true);
  });

  it('refuses other schemes, a missing URL and headers the service sets', () => {
    expect(valid({ url: 'file:///etc/passwd' })).toBe(false);
    expect(valid({ url: 'not a url' })).toBe(false);
    expect(valid({})).toBe(false);
    expect(valid({ url: 'https://example.com', headers: { 'Content-Length': '1' } })).toBe(false);
    expect(valid({ url: 'https://example.com', headers: { 'X-A': 'a\r\nb' } })).toBe(false);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PromptBlueprint } from '#shared/blueprints/schema.ts';
import { AppError } from '#shared/platform/errors.ts';
import { renderBlueprint, withMessageFormats } from '#shared/prompts/render/blueprint.ts';
import { renderFString } from '#shared/prompts/render/fstring.ts';
import { loadJinja } from '#shared/prompts/render/jinja.ts';
import {
  MAX_RENDER_MS,
  MAX_RENDERED_CHARS,
  RenderBudget,
  TemplateRenderError,
} from '#shared/prompts/render/limits.ts';

const fstring = (text: string, variables: Record<string, unknown> = {}) =>
  renderFString(text, variables, new RenderBudget());

const renderer = await loadJinja();

const jinja = (text: string, variables: Record<string, unknown> = {}) => {
  const budget = new RenderBudget();
  return renderer.render(text, renderer.variables(variables, budget), budget);
};

/** The error a template gets, as the client sees it. */
async function renderError(
  text: string,
  variables: Record<string, unknown> = {},
  format = 'jinja2',
): Promise<AppError> {
  try {
    await renderBlueprint(
      { type: 'completion', content: [{ type: 'text', text }], template_format: format } as PromptBlueprint,
      variables,
    );
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('the template rendered');
}

describe('f-string', () => {
  it('replaces each {name} by its variable', () => {
    expect(fstring('Hello {name}, you are {age}: {name}!', { name: 'Ann', age: 31 })).toEqual({
      text: 'Hello Ann, you are 31: Ann!',
      missing: [],
    });
  });

  it('reads {{ and }} as literal braces, and never as placeholders', () => {
    expect(fstring('{{name}} is {name}; a set: {{1, 2}}', { name: 'x' }).text).toBe(
      '{name} is x; a set: {1, 2}',
    );
    expect(fstring('{{{name}}}', { name: 'x' }).text).toBe('{x}');
  });

  it('leaves other braces (JSON in a prompt) as they are', () => {
    const text = 'Answer as {"answer": "…"} or { } or {not a name} or {';
    expect(fstring(text, { answer: 'no' })).toEqual({ text, missing: [] });
  });

  it('leaves a placeholder without a variable as it is, and names it once', () => {
    expect(fstring('{a} {b} {a} {c}', { b: 'B' })).toEqual({ text: '{a} B {a} {c}', missing: ['a', 'c'] });
  });

  it('accepts and ignores a conversion or format part', () => {
    expect(fstring('{x!r} {x:>10}', { x: 'v' }).text).toBe('v v');
  });

  it('writes lists and objects as JSON, null as nothing', () => {
    expect(fstring('{a}|{b}|{c}|{d}', { a: [1, 'two'], b: { k: true }, c: null, d: false }).text).toBe(
      '[1,"two"]|{"k":true}||false',
    );
  });

  it('reads only the variables given, not properties every object has', () => {
    expect(fstring('{constructor} {toString} {__proto__}', {})).toEqual({
      text: '{constructor} {toString} {__proto__}',
      missing: ['constructor', 'toString', '__proto__'],
    });
    const sent = JSON.parse('{"__proto__": "proto", "constructor": "ctor"}');
    expect(fstring('{__proto__} {constructor}', sent).text).toBe('proto ctor');
  });

  it('refuses to build a text past the bound, however short the template', () => {
    const text = '{big}'.repeat(50);
    expect(() => fstring(text, { big: 'x'.repeat(100_000) })).toThrow(TemplateRenderError);
  });
});

describe('jinja2', () => {
  it('renders variables, loops, conditions, filters and nested values', () => {
    const text =
      'Hi {{ user.name | upper }}!{% for item in items %} {{ loop.index }}.{{ item }}{% endfor %}' +
      '{% if vip %} (VIP){% endif %}';
    expect(jinja(text, { user: { name: 'ann' }, items: ['a', 'b'], vip: true })).toEqual({
      text: 'Hi ANN! 1.a 2.b (VIP)',
      missing: [],
    });
  });

  it('keeps whitespace as Jinja does by default (no trim_blocks, no lstrip_blocks)', () => {
    expect(jinja('{% if true %}\nyes\n{% endif %}').text).toBe('\nyes\n');
  });

  it('renders a missing variable as nothing and names it, unless the template guards it', () => {
    const text = '[{{ a }}][{{ b | default("B") }}][{% if c is defined %}{{ c }}{% endif %}][{{ d.e }}]';
    expect(jinja(text)).toEqual({ text: '[][B][][]', missing: ['a', 'd'] });
  });

  it('renders what it can around a missing variable: loops over it run no iteration, filters see ""', () => {
    expect(
      jinja('[{% for x in items %}{{ x }}{% endfor %}][{{ a | upper }}][{{ b ~ "!" }}][{{ c | length }}]'),
    ).toEqual({
      text: '[][][!][0]',
      missing: ['items', 'a', 'b', 'c'],
    });
  });

  it('does not count names the template sets or loops over as missing', () => {
    expect(jinja('{% set x = 1 %}{{ x }}{% for y in [2] %}{{ y }}{% endfor %}')).toEqual({
      text: '12',
      missing: [],
    });
  });

  it('lets a variable shadow a global, as in Jinja', () => {
    expect(jinja('{{ range }}', { range: 'mine' }).text).toBe('mine');
  });

  it('reaches no JavaScript object, prototype or constructor', () => {
    for (const text of [
      "{{ ''.__class__ }}",
      "{{ ''.constructor }}",
      '{{ [].__proto__ }}',
      '{{ {}.constructor }}',
      '{{ cycler.__init__.__globals__ }}',
      '{{ self.__init__ }}',
      '{{ namespace.constructor }}',
      '{{ lipsum }}{{ config }}{{ process }}{{ globalThis }}',
    ]) {
      expect(jinja(text).text, text).toBe('');
    }
  });

  it('refuses a template that calls what it cannot reach, and runs nothing', async () => {
    for (const text of [
      '{{ range.constructor("return process.env")() }}',
      "{{ ''.constructor.constructor('return process')() }}",
      '{{ namespace.constructor("return process.env.AWS_SECRET_ACCESS_KEY")() }}',
    ]) {
      const error = await renderError(text);
      expect(error.status).toBe(422);
      expect(error.code).toBe('template_render_error');
      expect(error.message).toContain('Cannot call something that is not a function');
    }
  });

  it('prints functions as <function>, never as their source', () => {
    expect(jinja("{{ range }}|{{ range ~ '' }}|{{ 'x'.upper }}|{{ namespace }}").text).toBe(
      '<function>|<function>|<function>|<function>',
    );
  });

  it('names a syntax error', async () => {
    const error = await renderError('Hello {{ name ');
    expect(error.status).toBe(422);
    expect(error.message).toMatch(
      /^Cannot render prompt_template\.content\[0\]\.text \(jinja2\): jinja2 syntax error/,
    );
    expect(error.detail).toEqual([
      { loc: ['prompt_template', 'content', 0, 'text'], msg: expect.any(String), type: 'template_error' },
    ]);
  });

  it("reports the template's own raise_exception", async () => {
    expect((await renderError('{{ raise_exception("no tools here") }}')).message).toContain(
      'the template raised an error: no tools here',
    );
  });

  describe('bounds', () => {
    // Each deterministic bound on its own, however loaded the machine: the clock (tested with a clock of
    // its own below) stands still.
    beforeEach(() => {
      vi.spyOn(performance, 'now').mockReturnValue(0);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const bounded = async (text: string, variables: Record<string, unknown> = {}) => {
      const error = await renderError(text, variables);
      expect(error.status).toBe(422);
      expect(error.detail?.[0]?.type).toBe('template_limit');
      return error.message;
    };

    it('refuses a huge range before making it', async () => {
      expect(await bounded('{% for i in range(100000000) %}x{% endfor %}')).toContain(
        'range() of more than 100,000 items',
      );
    });

    it('bounds nested loops, even with empty bodies', async () => {
      expect(
        await bounded('{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}'),
      ).toContain('evaluation steps');
    });

    it('bounds a long loop', async () => {
      expect(await bounded('{% for i in range(90000) %}{{ i }}{% endfor %}')).toContain('evaluation steps');
    });

    it('bounds a string that doubles in a loop', async () => {
      expect(
        await bounded('{% set s = "ab" %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s }}'),
      ).toContain('a string of more than 2,000,000 characters');
    });

    it('bounds a list that doubles in a loop', async () => {
      expect(
        await bounded(
          '{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}',
        ),
      ).toContain('a list of more than 100,000 items');
    });

    it('bounds one-step growth: indent, replace, join, tojson', async () => {
      expect(await bounded('{{ "a\\nb" | indent(100000000) }}')).toContain('indent would make a string');
      expect(await bounded('{{ big.replace("", big) }}', { big: 'x'.repeat(10_000) })).toContain(
        'replace would make',
      );
      expect(await bounded('{{ big | replace("x", big) }}', { big: 'x'.repeat(10_000) })).toContain(
        'replace would make',
      );
      expect(
        await bounded('{{ items | join(big) }}', { items: Array(1000).fill('a'), big: 'x'.repeat(10_000) }),
      ).toContain('join would make');
      const deep = JSON.parse(`${'['.repeat(200)}${'"x",'.repeat(5000)}"x"${']'.repeat(200)}`);
      expect(await bounded('{{ deep | tojson(indent=100) }}', { deep })).toContain('tojson would make');
    });

    it('bounds work on large values, however few the steps', async () => {
      expect(
        await bounded('{% for i in range(200) %}{% set x = big.upper() %}{% endfor %}', {
          big: 'x'.repeat(1_000_000),
        }),
      ).toContain('characters and items processed');
    });

    it('bounds the time a render takes, whatever the work is charged', () => {
      // Sorting a large list in a loop is cheap in charged work and slow in time: the clock is the backstop.
      let now = 0;
      const budget = new RenderBudget(() => (now += 1));
      const render = () =>
        renderer.render(
          '{% for i in range(1000) %}{{ items | sort | length }}{% endfor %}',
          renderer.variables({ items: ['b', 'a'] }, budget),
          budget,
        );
      expect(render).toThrow(TemplateRenderError);
      expect(render).toThrow(`rendering took more than ${MAX_RENDER_MS} ms`);
    });

    it('bounds recursion', async () => {
      expect(await bounded('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}')).toContain(
        'nested more than',
      );
      expect(
        await bounded(
          '{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(30) }}',
        ),
      ).toContain('evaluation steps');
    });
  });
});

describe('renderBlueprint', () => {
  const chat = (messages: unknown[], extra: Record<string, unknown> = {}) =>
    ({ type: 'chat', messages, ...extra }) as PromptBlueprint;
  const text = (value: string) => ({ type: 'text', text: value });

  it('renders every text block of every message, each in its own format, and nothing else', async () => {
    const blueprint = chat([
      { role: 'system', content: [text('You are {role}.')] },
      {
        role: 'user',
        template_format: 'jinja2',
        content: [
          text('{{ question }} {x}'),
          { type: 'image_url', image_url: { url: 'https://x/{role}.png' } },
          text('{% for t in tags %}#{{ t }} {% endfor %}'),
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q": "{role}"}' } }],
      },
    ]);
    const before = structuredClone(blueprint);
    const { blueprint: rendered, missing } = await renderBlueprint(blueprint, {
      role: 'a guide',
      question: 'Why?',
      tags: ['a', 'b'],
    });
    expect(rendered).toEqual(
      chat([
        { role: 'system', content: [text('You are a guide.')] },
        {
          role: 'user',
          template_format: 'jinja2',
          content: [
            text('Why? {x}'),
            { type: 'image_url', image_url: { url: 'https://x/{role}.png' } },
            text('#a #b '),
          ],
        },
        before.type === 'chat' ? before.messages[2] : undefined,
      ]),
    );
    expect(missing).toEqual([]);
    expect(blueprint).toEqual(before);
  });

  it('takes the template-wide format for messages without their own', async () => {
    const blueprint = chat([{ role: 'user', content: [text('{{ a }} {a}')] }], { template_format: 'jinja2' });
    const rendered = (await renderBlueprint(blueprint, { a: 'A' })).blueprint;
    expect(rendered.type === 'chat' && rendered.messages[0]).toEqual({
      role: 'user',
      template_format: 'jinja2',
      content: [text('A {a}')],
    });
  });

  it('renders completion content in the template format', async () => {
    const blueprint = {
      type: 'completion',
      content: [text('{{ a }} {a}'), text('{{ b }}')],
      template_format: 'jinja2',
    };
    expect(await renderBlueprint(blueprint as PromptBlueprint, { a: 1 })).toEqual({
      blueprint: { ...blueprint, content: [text('1 {a}'), text('')] },
      missing: ['b'],
    });
  });

  it('gathers missing variables across blocks, each once, in order of first use', async () => {
    const blueprint = chat([
      { role: 'system', content: [text('{b} {a}')] },
      { role: 'user', template_format: 'jinja2', content: [text('{{ c }}{{ a }}')] },
    ]);
    expect((await renderBlueprint(blueprint, {})).missing).toEqual(['b', 'a', 'c']);
  });

  it('replaces a placeholder message by the messages of its variable, or keeps it and names it', async () => {
    const blueprint = chat([
      { role: 'system', content: [text('Be brief.')] },
      { role: 'placeholder', name: 'history', content: null },
      { role: 'user', content: [text('{q}')] },
    ]);
    const history = [
      { role: 'user', content: [text('Hi {q}')] },
      { role: 'assistant', content: [text('Hello')] },
    ];
    const rendered = (await renderBlueprint(blueprint, { history, q: 'now' })).blueprint;
    expect(rendered.type === 'chat' && rendered.messages).toEqual([
      { role: 'system', content: [text('Be brief.')] },
      ...history,
      { role: 'user', content: [text('now')] },
    ]);
    expect((await renderBlueprint(blueprint, { q: 'now' })).missing).toEqual(['history']);
    const error = await renderBlueprint(blueprint, { history: 'not messages', q: '' }).then(
      () => undefined,
      (caught: unknown) => caught as AppError,
    );
    expect(error?.status).toBe(422);
    expect(error?.detail?.[0]?.loc).toEqual(['body', 'input_variables', 'history']);
  });

  it('points a template error at its block', async () => {
    const blueprint = chat([
      { role: 'system', content: [text('ok')] },
      { role: 'user', template_format: 'jinja2', content: [text('fine'), text('{% for %}')] },
    ]);
    await expect(renderBlueprint(blueprint, {})).rejects.toThrow(
      expect.objectContaining({
        status: 422,
        code: 'template_render_error',
        detail: [expect.objectContaining({ loc: ['prompt_template', 'messages', 1, 'content', 1, 'text'] })],
      }),
    );
  });

  it('bounds the whole template, not only each block', async () => {
    const half = 'x'.repeat(MAX_RENDERED_CHARS / 2 + 1);
    const blueprint = chat([
      { role: 'user', content: [text('{v}')] },
      { role: 'user', content: [text('{v}')] },
    ]);
    await expect(renderBlueprint(blueprint, { v: half })).rejects.toThrow(
      expect.objectContaining({ status: 422 }),
    );
  });

  it('marks each message with the template-wide jinja2 format (for the SDK cache), and only then', () => {
    const jinjaChat = chat([{ role: 'user', content: [text('x')] }], { template_format: 'jinja2' });
    const marked = withMessageFormats(jinjaChat);
    expect(marked.type === 'chat' && marked.messages[0]?.template_format).toBe('jinja2');
    const fChat = chat([{ role: 'user', content: [text('x')] }], { template_format: 'f-string' });
    expect(withMessageFormats(fChat)).toBe(fChat);
  });
});

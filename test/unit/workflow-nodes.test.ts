import { describe, expect, it } from 'vitest';
import type { RegexRun, SandboxPort } from '#shared/sandbox/sandbox.ts';
import { looksLikeSql } from '#shared/workflows/nodes/assert-valid.ts';
import { BASIC_EXECUTORS } from '#shared/workflows/nodes/basic.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import { type NodeContext, NodeFailure, type NodePorts } from '#shared/workflows/nodes/types.ts';

/**
 * Every basic executor through executeNode (configuration parsed as at run time): its value for good
 * input, and the NodeFailure message a user reads for bad input.
 */
const regexRuns: RegexRun[] = [];
/** Runs the RegExp in process, as the sandbox would in its worker. */
const inProcessSandbox: SandboxPort = {
  async runJavaScript() {
    throw new Error('not used');
  },
  async runRegex(run) {
    regexRuns.push(run);
    const pattern = new RegExp(run.pattern, run.flags);
    if (run.mode === 'test') return { ok: true, value: pattern.test(run.input) };
    return {
      ok: true,
      value: [...run.input.matchAll(new RegExp(run.pattern, `${run.flags}g`))].map((m) => m[0]),
    };
  },
};

const context = (inputs: Record<string, unknown>, sandbox: SandboxPort = inProcessSandbox): NodeContext => ({
  workspaceId: 1,
  inputs,
  deadline: Date.now() + 60_000,
  ports: { sandbox } as NodePorts,
});
const run = (
  node_type: string,
  configuration: Record<string, unknown>,
  inputs: Record<string, unknown> = {},
) => executeNode({ node_type, configuration }, context(inputs));
async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NodeFailure);
  return (error as NodeFailure).message;
}
const configProblem = async (node_type: string, configuration: unknown) => {
  const parsed = await BASIC_EXECUTORS[node_type]?.config.safeParseAsync(configuration);
  expect(parsed?.success).toBe(false);
  return parsed?.success === false ? parsed.error.issues[0] : undefined;
};

describe('sources', () => {
  it('fails naming a source that is neither a dependency nor an input', async () => {
    expect(await failure(run('COALESCE', { sources: ['a', 'ghost'] }, { a: null }))).toBe(
      'source "ghost" is not available: no input or earlier result has that name',
    );
  });

  it.each([
    ['COMPARE', { sources: ['x', 'ghost'], comparison_type: { type: 'STRING' } }],
    ['CONTAINS', { source: 'x', value_source: 'ghost' }],
    ['REGEX', { source: 'ghost', regex_pattern: 'a' }],
    ['REGEX_EXTRACTION', { source: 'ghost', regex_pattern: 'a' }],
    ['JSON_PATH', { source: 'ghost', json_path: '$' }],
    ['PARSE_VALUE', { source: 'ghost', type: 'string' }],
    ['ASSERT_VALID', { source: 'ghost', type: 'number' }],
    ['COMBINE_COLUMNS', { sources: ['x', 'ghost'] }],
    ['COUNT', { source: 'ghost', type: 'words' }],
    ['MATH_OPERATOR', { sources: ['x', 'ghost'], operator: 'lt' }],
    ['MIN_MAX', { source: 'ghost', type: 'min' }],
    ['ABSOLUTE_NUMERIC_DISTANCE', { sources: ['x', 'ghost'] }],
  ])('%s fails naming a missing source', async (type, configuration) => {
    expect(await failure(run(type, configuration, { x: 1 }))).toMatch(/^source "ghost" is not available/);
  });

  it('lists every basic node type', () => {
    expect(Object.keys(BASIC_EXECUTORS).sort()).toEqual(
      [
        'ABSOLUTE_NUMERIC_DISTANCE',
        'ASSERT_VALID',
        'COALESCE',
        'COMBINE_COLUMNS',
        'COMPARE',
        'CONTAINS',
        'COUNT',
        'JSON_PATH',
        'MATH_OPERATOR',
        'MIN_MAX',
        'PARSE_VALUE',
        'REGEX',
        'REGEX_EXTRACTION',
        'VARIABLE',
      ].sort(),
    );
  });
});

describe('VARIABLE', () => {
  it('answers its string or JSON value', async () => {
    expect(await run('VARIABLE', { value: { type: 'string', value: '42' } })).toBe('42');
    expect(await run('VARIABLE', { value: { type: 'json', value: { a: [1] } } })).toEqual({ a: [1] });
    expect(await run('VARIABLE', { value: { type: 'json', value: '{"a": 1}' } })).toEqual({ a: 1 });
    expect(await run('VARIABLE', { value: { type: 'json', value: 'plain' } })).toBe('plain');
    expect(await run('VARIABLE', { value: { type: 'json', value: null } })).toBeNull();
  });

  it('refuses a configuration without a value, of another type, or a string type with a non-string', async () => {
    expect((await configProblem('VARIABLE', {}))?.path).toEqual(['value']);
    expect((await configProblem('VARIABLE', { value: { type: 'xml', value: 'x' } }))?.path).toEqual([
      'value',
      'type',
    ]);
    expect((await configProblem('VARIABLE', { value: { type: 'string', value: 3 } }))?.path).toEqual([
      'value',
      'value',
    ]);
    expect((await configProblem('VARIABLE', { value: { type: 'json' } }))?.path).toEqual(['value', 'value']);
  });

  it('fails at run with an invalid configuration stored before', async () => {
    expect(await failure(run('VARIABLE', { value: 1 }))).toMatch(/^invalid configuration for VARIABLE: /);
  });
});

describe('COMPARE', () => {
  const strings = { sources: ['a', 'b'], comparison_type: { type: 'STRING' } };
  const json = (json_path?: string) => ({
    sources: ['a', 'b'],
    comparison_type: { type: 'JSON', json_path },
  });

  it('compares text', async () => {
    expect(await run('COMPARE', strings, { a: 'yes', b: 'yes' })).toBe(true);
    expect(await run('COMPARE', strings, { a: 'yes', b: 'Yes' })).toBe(false);
    expect(await run('COMPARE', strings, { a: 42, b: '42' })).toBe(true);
    expect(await run('COMPARE', strings, { a: { x: 1 }, b: '{"x":1}' })).toBe(true);
  });

  it('compares JSON deeply, strings parsed, through a json_path', async () => {
    expect(await run('COMPARE', json(), { a: '{"x": 1, "y": [2]}', b: { y: [2], x: 1 } })).toBe(true);
    expect(await run('COMPARE', json(), { a: '{"x": 1}', b: { x: '1' } })).toBe(false);
    expect(
      await run('COMPARE', json('$.status'), { a: '{"status": "ok", "n": 1}', b: { status: 'ok' } }),
    ).toBe(true);
    expect(
      await run('COMPARE', json('$.items[*].id'), {
        a: { items: [{ id: 1 }, { id: 2 }] },
        b: { items: [{ id: 1 }] },
      }),
    ).toBe(false);
  });

  it('fails on a string that is not JSON, and refuses bad configurations', async () => {
    expect(await failure(run('COMPARE', json(), { a: 'not json', b: '{}' }))).toBe(
      'source "a" is not valid JSON',
    );
    expect(
      (await configProblem('COMPARE', { sources: ['a'], comparison_type: { type: 'STRING' } }))?.path,
    ).toEqual(['sources']);
    expect(
      (await configProblem('COMPARE', { sources: ['a', 'b'], comparison_type: { type: 'XML' } }))?.path,
    ).toEqual(['comparison_type', 'type']);
    expect((await configProblem('COMPARE', json('$.[')))?.path).toEqual(['comparison_type', 'json_path']);
    expect(
      (
        await configProblem('COMPARE', {
          sources: ['a', 'b'],
          comparison_type: { type: 'STRING', json_path: '$.x' },
        })
      )?.message,
    ).toBe('json_path applies to comparison_type JSON only');
  });
});

describe('CONTAINS', () => {
  it('finds a value or another source, ignoring case', async () => {
    expect(await run('CONTAINS', { source: 't', value: 'THANK you' }, { t: 'Well, thank you!' })).toBe(true);
    expect(await run('CONTAINS', { source: 't', value: 'sorry' }, { t: 'Well, thank you!' })).toBe(false);
    expect(await run('CONTAINS', { source: 't', value_source: 'v' }, { t: 'Code 42', v: 42 })).toBe(true);
    expect(await run('CONTAINS', { source: 't', value: 7 }, { t: ['a7'] })).toBe(true);
  });

  it('needs exactly one of value and value_source', async () => {
    expect((await configProblem('CONTAINS', { source: 't' }))?.message).toBe(
      'give exactly one of value and value_source',
    );
    expect((await configProblem('CONTAINS', { source: 't', value: 'a', value_source: 'b' }))?.path).toEqual([
      'value',
    ]);
  });
});

describe('REGEX and REGEX_EXTRACTION', () => {
  it('test and extract through the sandbox, with a time bound', async () => {
    regexRuns.length = 0;
    expect(
      await run('REGEX', { source: 'e', regex_pattern: '^[\\w.-]+@[\\w.-]+\\.\\w+$' }, { e: 'a.b@c.io' }),
    ).toBe(true);
    expect(await run('REGEX', { source: 'e', regex_pattern: '^\\d+$' }, { e: 'a1' })).toBe(false);
    expect(
      await run('REGEX_EXTRACTION', { source: 't', regex_pattern: '\\d+\\.?\\d*' }, { t: 'a 1.5 b 20' }),
    ).toEqual(['1.5', '20']);
    expect(regexRuns.map(({ mode, timeoutMs }) => ({ mode, timeoutMs }))).toEqual([
      { mode: 'test', timeoutMs: 1000 },
      { mode: 'test', timeoutMs: 1000 },
      { mode: 'match_all', timeoutMs: 1000 },
    ]);
  });

  it('reads Python inline flags and named groups', async () => {
    expect(await run('REGEX', { source: 't', regex_pattern: '(?i)^hello' }, { t: 'HELLO there' })).toBe(true);
    expect(await run('REGEX', { source: 't', regex_pattern: '(?P<word>a)b' }, { t: 'xab' })).toBe(true);
    expect(regexRuns.at(-1)).toMatchObject({ pattern: '(?<word>a)b', flags: '' });
  });

  it('refuses an invalid or too long pattern at create', async () => {
    expect((await configProblem('REGEX', { source: 't', regex_pattern: '(a' }))?.message).toMatch(
      /^not a valid regular expression: /,
    );
    expect(
      (await configProblem('REGEX_EXTRACTION', { source: 't', regex_pattern: 'a'.repeat(1001) }))?.path,
    ).toEqual(['regex_pattern']);
  });

  it('fails on a too large input instead of cutting it', async () => {
    const input = 'a'.repeat(100 * 1024 + 1);
    expect(await failure(run('REGEX', { source: 't', regex_pattern: 'a' }, { t: input }))).toBe(
      'source "t" is 102401 bytes; a regular expression runs on at most 102400 bytes',
    );
  });

  it('fails when the sandbox stops a runaway match or the match errors', async () => {
    const stopped: SandboxPort = {
      ...inProcessSandbox,
      runRegex: async ({ timeoutMs }) => ({
        ok: false,
        reason: 'timeout',
        error: `killed after ${timeoutMs} ms`,
      }),
    };
    const node = { node_type: 'REGEX', configuration: { source: 't', regex_pattern: '(a+)+$' } };
    expect(await failure(executeNode(node, context({ t: `${'a'.repeat(40)}!` }, stopped)))).toBe(
      'the regular expression did not finish within 1000 ms',
    );
    const broken: SandboxPort = {
      ...inProcessSandbox,
      runRegex: async () => ({ ok: false, reason: 'error', error: 'boom' }),
    };
    expect(await failure(executeNode(node, context({ t: 'a' }, broken)))).toBe(
      'the regular expression failed: boom',
    );
  });
});

describe('JSON_PATH', () => {
  const data = {
    items: [
      { v: 1, name: 'a' },
      { v: 3, name: 'b' },
      { v: 5, name: 'c' },
    ],
  };

  it('answers the first match, or every match', async () => {
    expect(await run('JSON_PATH', { source: 'd', json_path: '$.items[?@.v > 2].name' }, { d: data })).toBe(
      'b',
    );
    expect(
      await run(
        'JSON_PATH',
        { source: 'd', json_path: '$.items[?@.v > 2].name', return_first_match: false },
        { d: data },
      ),
    ).toEqual(['b', 'c']);
    expect(
      await run('JSON_PATH', { source: 'd', json_path: '$.selected' }, { d: '{"selected": "agent"}' }),
    ).toBe('agent');
    expect(await run('JSON_PATH', { source: 'd', json_path: '$.missing' }, { d: data })).toBeNull();
  });

  it('fails on a source that is not JSON; refuses an invalid path (no code evaluation)', async () => {
    expect(await failure(run('JSON_PATH', { source: 'd', json_path: '$.a' }, { d: 'plain text' }))).toBe(
      'source "d" is not valid JSON',
    );
    expect(
      (
        await configProblem('JSON_PATH', {
          source: 'd',
          json_path: '$..[?(@.constructor.constructor("1")())]',
        })
      )?.message,
    ).toMatch(/^not a valid JSONPath expression/);
  });
});

describe('PARSE_VALUE', () => {
  it.each([
    ['string', { a: 1 }, '{"a":1}'],
    ['string', null, ''],
    ['number', ' 3.5 ', 3.5],
    ['number', 7, 7],
    ['boolean', 'Yes', true],
    ['boolean', 'false', false],
    ['boolean', 0, false],
    ['object', '{"a": [1]}', { a: [1] }],
    ['object', '[1, 2]', [1, 2]],
    ['object', { k: 'v' }, { k: 'v' }],
  ])('%s of %j is %j', async (type, value, expected) => {
    expect(await run('PARSE_VALUE', { source: 's', type }, { s: value })).toEqual(expected);
  });

  it.each([
    ['number', 'abc', 'cannot parse source "s" as number: abc'],
    ['boolean', 'maybe', 'cannot parse source "s" as boolean: maybe'],
    ['object', '42', 'cannot parse source "s" as object: 42'],
    ['object', null, 'cannot parse source "s" as object: '],
  ])('fails to parse %s from %j', async (type, value, message) => {
    expect(await failure(run('PARSE_VALUE', { source: 's', type }, { s: value }))).toBe(message);
  });
});

describe('ASSERT_VALID', () => {
  it.each([
    ['object', '{"a": 1}', true],
    ['object', { a: 1 }, true],
    ['object', '{"a": ', false],
    ['object', '42', false],
    ['number', '-1e3', true],
    ['number', 'twelve', false],
    ['sql', "SELECT id, name FROM users WHERE name = 'O''Brien' AND (age > 3);", true],
    ['sql', 'with x as (select 1) select * from x -- trailing comment', true],
    ['sql', 'SELECT 1; /* two */ SELECT 2', true],
    ['sql', 'SELECT (1', false],
    ['sql', "SELECT 'unclosed", false],
    ['sql', 'hello world', false],
    ['sql', 'SELECT 1; rm -rf /', false],
    ['sql', '', false],
    ['sql', 42, false],
  ])('%s: %j is %s', async (type, value, expected) => {
    expect(await run('ASSERT_VALID', { source: 's', type }, { s: value })).toBe(expected);
  });

  it('checks SQL lightly: a keyword-led statement with balanced parentheses and quotes', () => {
    expect(looksLikeSql('(SELECT 1) UNION (SELECT 2)')).toBe(true);
    expect(looksLikeSql('SELECT ")"')).toBe(true);
    expect(looksLikeSql('SELECT 1 /* unclosed')).toBe(false);
    expect(looksLikeSql(';;')).toBe(false);
  });
});

describe('COALESCE and COMBINE_COLUMNS', () => {
  it('answers the first non-null value, or null', async () => {
    expect(await run('COALESCE', { sources: ['a', 'b', 'c'] }, { a: null, b: '', c: 'x' })).toBe('');
    expect(await run('COALESCE', { sources: ['a', 'b'] }, { a: null, b: null })).toBeNull();
    expect((await configProblem('COALESCE', { sources: ['a'] }))?.path).toEqual(['sources']);
  });

  it('combines sources into one object', async () => {
    expect(await run('COMBINE_COLUMNS', { sources: ['q', 'ctx'] }, { q: 'why?', ctx: { n: 1 } })).toEqual({
      q: 'why?',
      ctx: { n: 1 },
    });
    expect((await configProblem('COMBINE_COLUMNS', { sources: [] }))?.path).toEqual(['sources']);
  });
});

describe('COUNT', () => {
  const text = 'Hello there. How are you?\n\nFine!  Thanks… 👍\n \nBye';
  it.each([
    ['chars', 'a👍b', 3],
    ['words', text, 9],
    ['sentences', text, 5],
    ['paragraphs', text, 3],
    ['words', '', 0],
    ['sentences', '...', 0],
    ['sentences', 'It costs 3.5 dollars. See www.example.com!', 2],
  ])('%s of %j is %d', async (type, value, expected) => {
    expect(await run('COUNT', { source: 's', type }, { s: value })).toBe(expected);
  });

  it('refuses an unknown count type', async () => {
    expect((await configProblem('COUNT', { source: 's', type: 'lines' }))?.path).toEqual(['type']);
  });
});

describe('MATH_OPERATOR', () => {
  it.each([
    [{ sources: ['a'], operator: 'ge', value: 0.8 }, { a: 0.8 }, true],
    [{ sources: ['a'], operator: 'gt', value: 0.8 }, { a: '0.8' }, false],
    [{ sources: ['a', 'b'], operator: 'lt', value: null }, { a: 1, b: 2 }, true],
    [{ sources: ['a', 'b'], operator: 'le' }, { a: 3, b: '2' }, false],
  ])('%j over %j is %s', async (configuration, inputs, expected) => {
    expect(await run('MATH_OPERATOR', configuration, inputs)).toBe(expected);
  });

  it('fails on a non-number; needs value with exactly one source', async () => {
    expect(
      await failure(run('MATH_OPERATOR', { sources: ['a'], operator: 'lt', value: 1 }, { a: 'n/a' })),
    ).toBe('source "a" is not a number: n/a');
    expect((await configProblem('MATH_OPERATOR', { sources: ['a'], operator: 'lt' }))?.message).toBe(
      'value is required with one source',
    );
    expect(
      (await configProblem('MATH_OPERATOR', { sources: ['a', 'b'], operator: 'lt', value: 1 }))?.message,
    ).toBe('value is used only with one source');
    expect(
      (await configProblem('MATH_OPERATOR', { sources: ['a'], operator: 'eq', value: 1 }))?.path,
    ).toEqual(['operator']);
  });
});

describe('MIN_MAX', () => {
  it('takes the min or max of an array or of JSONPath matches', async () => {
    expect(await run('MIN_MAX', { source: 's', type: 'max' }, { s: [3, '10', null, -1] })).toBe(10);
    expect(await run('MIN_MAX', { source: 's', type: 'min' }, { s: '[3, 2.5]' })).toBe(2.5);
    const scores = [{ value: 4 }, { value: 9 }];
    expect(await run('MIN_MAX', { source: 's', type: 'max', json_path: '$[*].value' }, { s: scores })).toBe(
      9,
    );
    expect(
      await run('MIN_MAX', { source: 's', type: 'min', json_path: '$.all' }, { s: { all: [5, 6] } }),
    ).toBe(5);
  });

  it('fails on no numbers, a non-number, or a non-array without json_path', async () => {
    expect(await failure(run('MIN_MAX', { source: 's', type: 'max' }, { s: [] }))).toBe(
      'source "s" holds no number to take the max of',
    );
    expect(await failure(run('MIN_MAX', { source: 's', type: 'max' }, { s: [1, 'x'] }))).toBe(
      'source "s" is not a number: x',
    );
    expect(await failure(run('MIN_MAX', { source: 's', type: 'max' }, { s: { a: 1 } }))).toBe(
      'source "s" is not an array; give a json_path',
    );
  });
});

describe('ABSOLUTE_NUMERIC_DISTANCE', () => {
  it('answers |a - b| and fails on a non-number', async () => {
    expect(await run('ABSOLUTE_NUMERIC_DISTANCE', { sources: ['a', 'b'] }, { a: 2, b: '5.5' })).toBe(3.5);
    expect(await failure(run('ABSOLUTE_NUMERIC_DISTANCE', { sources: ['a', 'b'] }, { a: 2, b: null }))).toBe(
      'source "b" is not a number: ',
    );
    expect((await configProblem('ABSOLUTE_NUMERIC_DISTANCE', { sources: ['a', 'b', 'c'] }))?.path).toEqual([
      'sources',
    ]);
  });
});

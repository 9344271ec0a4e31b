import { describe, expect, it } from 'vitest';
import { requestLogIdOf } from '#shared/traces/links.ts';

describe('requestLogIdOf', () => {
  it.each([
    ['promptlayer.request_id', { 'promptlayer.request_id': 12 }, 12],
    ['request_id as a string of digits', { request_id: '34' }, 34],
    ['pl_request_id', { pl_request_id: 56 }, 56],
    ['the first named attribute that holds an id', { 'promptlayer.request_id': 'x', request_id: 7 }, 7],
    [
      "run()'s function_output",
      { function_output: JSON.stringify({ request_id: 78, raw_response: {}, prompt_blueprint: null }) },
      78,
    ],
    ['an attribute before function_output', { request_id: 1, function_output: '{"request_id": 2}' }, 1],
  ])('reads %s', (_, attributes, expected) => {
    expect(requestLogIdOf(attributes)).toBe(expected);
  });

  it.each([
    ['no attributes', {}],
    ['zero', { request_id: 0 }],
    ['a negative id', { request_id: -3 }],
    ['a fraction', { request_id: 1.5 }],
    ['an id beyond 2^53', { request_id: '99999999999999999' }],
    ['a string that is not digits', { request_id: '12abc' }],
    ['function_output that is not JSON', { function_output: '{oops' }],
    ['function_output that is a JSON number', { function_output: '41' }],
    ['function_output without request_id', { function_output: '{"id": 5}' }],
    ['function_output with a null request_id', { function_output: '{"request_id": null}' }],
  ])('finds none in %s', (_, attributes) => {
    expect(requestLogIdOf(attributes)).toBeUndefined();
  });
});

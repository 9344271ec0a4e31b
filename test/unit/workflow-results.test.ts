import { describe, expect, it } from 'vitest';
import { ANSWER_BUDGET_BYTES, answerBytes } from '#shared/platform/answer-limit.ts';
import {
  executionResults,
  mainOutputNode,
  type ResolvedNode,
  withinAnswerLimit,
} from '#shared/workflows/engine/results.ts';

const node = (name: string, order: number, more: Partial<ResolvedNode> = {}): ResolvedNode => ({
  name,
  order,
  status: 'SUCCESS',
  value: name,
  error_message: null,
  raw_error_message: null,
  is_output_node: false,
  finishedAt: 100 + order,
  ...more,
});
const result = ({ name: _n, order: _o, finishedAt: _f, ...rest }: ResolvedNode) => rest;

describe('the results of a run', () => {
  it('answers 202 with every node while one is QUEUED or RUNNING, whatever return_all_outputs says', () => {
    const nodes = [node('a', 0), node('b', 1, { status: 'RUNNING', is_output_node: true })];
    for (const all of [true, false]) {
      expect(executionResults(nodes, all)).toEqual({
        status: 202,
        body: { a: result(nodes[0]!), b: result(nodes[1]!) },
      });
    }
    expect(executionResults([node('q', 0, { status: 'QUEUED' })], false).status).toBe(202);
  });

  it('answers 200 with every node when asked, else the output node whose success came first', () => {
    const nodes = [
      node('a', 0),
      node('late', 1, { is_output_node: true, finishedAt: 500 }),
      node('early', 2, { is_output_node: true, finishedAt: 200 }),
      node('failed', 3, { is_output_node: true, status: 'FAILED', finishedAt: 10, value: null }),
    ];
    expect(Object.keys(executionResults(nodes, true).body)).toEqual(['a', 'late', 'early', 'failed']);
    expect(executionResults(nodes, false)).toEqual({ status: 200, body: { early: result(nodes[2]!) } });
  });

  it('breaks a tie of finishing times by declaration order', () => {
    const nodes = [
      node('second', 1, { is_output_node: true, finishedAt: 5 }),
      node('first', 0, { is_output_node: true, finishedAt: 5 }),
    ];
    expect(mainOutputNode(nodes)?.name).toBe('first');
  });

  it('answers every output node when none succeeded', () => {
    const nodes = [
      node('a', 0),
      node('x', 1, { is_output_node: true, status: 'FAILED' }),
      node('y', 2, { is_output_node: true, status: 'SKIPPED' }),
    ];
    expect(Object.keys(executionResults(nodes, false).body)).toEqual(['x', 'y']);
    expect(mainOutputNode(nodes)).toBeUndefined();
  });

  it('keeps a node named __proto__ as an ordinary key', () => {
    const body = executionResults([node('__proto__', 0, { is_output_node: true })], true).body;
    expect(Object.keys(body)).toEqual(['__proto__']);
    expect(JSON.stringify(body)).toBe(
      '{"__proto__":{"status":"SUCCESS","value":"__proto__","error_message":null,"raw_error_message":null,"is_output_node":true}}',
    );
  });

  it('leaves the largest values out of an answer that would pass its limit, each marked with its size', () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const nodes = [
      node('a', 0, { value: big }),
      node('b', 1, { value: `${big}yy` }),
      node('c', 2, { value: `${big}y` }),
      node('__proto__', 3, { value: 'small' }),
    ];
    const { body } = executionResults(nodes, true);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(ANSWER_BUDGET_BYTES);
    expect(body.b).toMatchObject({ status: 'SUCCESS', value: null, value_omitted_bytes: big.length + 4 });
    // Leaving the largest out was enough: the others stay.
    expect(body.c).toEqual(result(nodes[2]!));
    expect(body.a).toEqual(result(nodes[0]!));
    expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toEqual(result(nodes[3]!));
    // Values full of quotes: within the limit as JSON, twice over it once escaped into Lambda's result.
    const quotes = '"'.repeat(1_200_000);
    const quoted = executionResults(
      [node('q1', 0, { value: quotes }), node('q2', 1, { value: quotes })],
      true,
    );
    expect(answerBytes(quoted.body)).toBeLessThanOrEqual(ANSWER_BUDGET_BYTES);
    // Equal sizes: the earlier is left out.
    expect(quoted.body.q1).toMatchObject({ value: null, value_omitted_bytes: 2_400_002 });
    expect(quoted.body.q2).toMatchObject({ value: quotes });
    // Within the limit, nothing changes.
    const small = { a: result(node('a', 0)) };
    expect(withinAnswerLimit(small)).toBe(small);
  });
});

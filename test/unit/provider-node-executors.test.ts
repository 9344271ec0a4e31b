import { beforeEach, describe, expect, it, vi } from 'vitest';
import { OutboundError, type OutboundRequest } from '#shared/platform/outbound-http.ts';
import { ProviderError } from '#shared/providers/errors.ts';
import type { LlmPort, LlmRequest } from '#shared/providers/port.ts';
import { trackRequest } from '#shared/request-logs/track-request.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import { type NodeContext, NodeFailure, type NodePorts } from '#shared/workflows/nodes/types.ts';

/** The three executors with fake ports: what they send, what they answer, how they fail. */
vi.mock('#shared/request-logs/track-request.ts', async (original) => ({
  ...(await original<typeof import('#shared/request-logs/track-request.ts')>()),
  trackRequest: vi.fn(async () => ({ success: true, request_id: 1, prompt_blueprint: {} })),
}));

const sent: LlmRequest[] = [];
let reply: (request: LlmRequest) => Promise<string> = async () => 'ok';
const llm: LlmPort = {
  async complete(_workspaceId, request) {
    sent.push(request);
    const text = await reply(request);
    return { text, response: { id: 'r' }, api: 'chat-completions', source: 'deployment' };
  },
};
let answer: (
  request: OutboundRequest,
) => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
const ports = {
  llm,
  http: { request: (request: OutboundRequest) => answer(request) },
  sandbox: {} as NodePorts['sandbox'],
} as NodePorts;

const context = (inputs: Record<string, unknown>): NodeContext => ({
  workspaceId: 7,
  inputs,
  deadline: Date.now() + 60_000,
  ports,
  origin: { workflowId: 1, workflowVersionNumber: 1, executionId: 2, nodeName: 'n' },
});

async function failure(promise: Promise<unknown>): Promise<NodeFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(NodeFailure);
  return error as NodeFailure;
}

beforeEach(() => {
  sent.length = 0;
  reply = async () => 'ok';
  vi.mocked(trackRequest).mockClear();
});

const inline = {
  inline_template: {
    prompt_template: {
      type: 'chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello {who}' }] }],
    },
    metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0.5 } } },
  },
};

describe('PROMPT_TEMPLATE', () => {
  it('sends the rendered template as the provider request and answers the text', async () => {
    reply = async () => 'Hi there';
    const value = await executeNode(
      { node_type: 'PROMPT_TEMPLATE', configuration: inline },
      context({ who: 'Ann' }),
    );
    expect(value).toBe('Hi there');
    expect(sent).toEqual([
      {
        provider: 'openai',
        body: {
          model: 'gpt-4o',
          temperature: 0.5,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello Ann' }] }],
        },
        deadline: expect.any(Number),
      },
    ]);
    expect(vi.mocked(trackRequest).mock.calls[0]?.[2]).toMatchObject({
      function_name: 'openai.chat.completions.create',
      provider_type: 'openai',
      status: 'SUCCESS',
      prompt_input_variables: { who: 'Ann' },
      metadata: { workflow_node_name: 'n', workflow_version_execution_id: '2' },
    });
  });

  it('turns a provider failure into the node failure and an ERROR log', async () => {
    reply = async () => {
      throw new ProviderError('PROVIDER_QUOTA_LIMIT', 'openai answered 429: quota', '{"error":{}}', 429);
    };
    const error = await failure(
      executeNode({ node_type: 'PROMPT_TEMPLATE', configuration: inline }, context({ who: 'x' })),
    );
    expect(error.message).toBe('PROVIDER_QUOTA_LIMIT: openai answered 429: quota');
    expect(error.raw).toBe('{"error":{}}');
    expect(vi.mocked(trackRequest).mock.calls[0]?.[2]).toMatchObject({
      status: 'ERROR',
      error_type: 'PROVIDER_QUOTA_LIMIT',
      error_message: 'openai answered 429: quota',
    });
  });

  it('fails the node, not the run, when the request log cannot be written', async () => {
    vi.mocked(trackRequest).mockRejectedValueOnce(new Error('table unavailable'));
    expect(
      await executeNode({ node_type: 'PROMPT_TEMPLATE', configuration: inline }, context({ who: 'x' })),
    ).toBe('ok');
  });

  it('uses the engine given on the node', async () => {
    const configuration = { ...inline, engine: { provider: 'anthropic', model: 'claude-x' } };
    await executeNode({ node_type: 'PROMPT_TEMPLATE', configuration }, context({ who: 'x' }));
    expect(sent[0]).toMatchObject({ provider: 'anthropic', body: { model: 'claude-x', max_tokens: 1024 } });
  });

  it('is FAILED for an invalid configuration', async () => {
    const error = await failure(
      executeNode({ node_type: 'PROMPT_TEMPLATE', configuration: {} }, context({})),
    );
    expect(error.message).toMatch(/^invalid configuration for PROMPT_TEMPLATE/);
  });
});

describe('LLM_ASSERTION', () => {
  it('asks the model with the text and the assertion, at temperature 0', async () => {
    reply = async () => 'TRUE';
    const value = await executeNode(
      { node_type: 'LLM_ASSERTION', configuration: { source: 'answer', prompt: 'is polite' } },
      context({ answer: { text: 'thanks' } }),
    );
    expect(value).toBe(true);
    const body = sent[0]?.body as {
      model: string;
      temperature: number;
      messages: { role: string; content: { text: string }[] }[];
    };
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.temperature).toBe(0);
    expect(body.messages[1]?.content[0]?.text).toBe('Text:\n{"text":"thanks"}\n\nAssertion: is polite');
  });

  it('answers a dict for a list of assertions', async () => {
    reply = async (request) => (JSON.stringify(request.body).includes('short') ? 'no' : 'yes');
    const value = await executeNode(
      { node_type: 'LLM_ASSERTION', configuration: { source: 'a', prompt: ['is polite', 'is short'] } },
      context({ a: 'x' }),
    );
    expect(value).toEqual({ 'is polite': true, 'is short': false });
  });

  it('keeps an assertion called __proto__ in the dict', async () => {
    reply = async () => 'true';
    const value = await executeNode(
      { node_type: 'LLM_ASSERTION', configuration: { source: 'a', prompt: ['__proto__', 'constructor'] } },
      context({ a: 'x' }),
    );
    expect(Object.keys(value as object)).toEqual(['__proto__', 'constructor']);
    expect(JSON.parse(JSON.stringify(value))).toEqual(JSON.parse('{"__proto__": true, "constructor": true}'));
  });
});

describe('ENDPOINT', () => {
  const json = (status: number, body: unknown) => async () => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(body)),
  });

  it('POSTs the inputs as JSON with the configured headers and parses a JSON answer', async () => {
    const requests: OutboundRequest[] = [];
    answer = async (request) => {
      requests.push(request);
      return json(200, { ok: 1 })();
    };
    const value = await executeNode(
      {
        node_type: 'ENDPOINT',
        configuration: { url: 'https://hooks.example.com/x', headers: { 'X-Token': 't' } },
      },
      context({ a: 1, b: 'two' }),
    );
    expect(value).toEqual({ ok: 1 });
    expect(requests[0]).toMatchObject({
      url: 'https://hooks.example.com/x',
      method: 'POST',
      headers: { 'X-Token': 't', 'content-type': 'application/json' },
      body: '{"a":1,"b":"two"}',
    });
  });

  it('answers the text of a non-JSON answer', async () => {
    answer = async () => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: Buffer.from('<p>hi</p>'),
    });
    expect(
      await executeNode({ node_type: 'ENDPOINT', configuration: { url: 'https://e.example' } }, context({})),
    ).toBe('<p>hi</p>');
  });

  it('fails on a non-2xx answer, a JSON type without JSON, and a refused address', async () => {
    answer = json(503, { busy: true });
    const status = await failure(
      executeNode({ node_type: 'ENDPOINT', configuration: { url: 'https://e.example' } }, context({})),
    );
    expect(status.message).toBe('ENDPOINT answered 503');
    expect(status.raw).toBe('{"busy":true}');

    answer = async () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{nope'),
    });
    const broken = await failure(
      executeNode({ node_type: 'ENDPOINT', configuration: { url: 'https://e.example' } }, context({})),
    );
    expect(broken.message).toMatch(/not JSON/);

    answer = async () => {
      throw new OutboundError('refused', 'the address of 169.254.169.254 is not allowed');
    };
    const refused = await failure(
      executeNode({ node_type: 'ENDPOINT', configuration: { url: 'http://169.254.169.254/' } }, context({})),
    );
    expect(refused.message).toBe('ENDPOINT request failed: the address of 169.254.169.254 is not allowed');
  });
});

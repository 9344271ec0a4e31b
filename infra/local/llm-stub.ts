import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for LLM providers, for tests (never started by `npm start`: a running service
 * calls real providers or fails). It speaks OpenAI's `POST /v1/chat/completions`, `/v1/responses` and
 * `/v1/completions` and Anthropic's `POST /v1/messages`, and answers deterministically with the text of
 * the last user message (an echo).
 *
 * Directives in that message change the answer, so a test can ask for any outcome through a prompt:
 * - `[[stub:reply=TEXT]]`: answer TEXT instead of the echo (up to `]]`);
 * - `[[stub:status=401|403|429|500|529]]`: answer that error in the provider's shape;
 * - `[[stub:quota]]`: the provider's out-of-quota error (OpenAI 429 insufficient_quota, Anthropic 400
 *   credit balance);
 * - `[[stub:slow=MS]]`: wait MS milliseconds before answering;
 * - `[[stub:tool=NAME ARGS_JSON]]` (OpenAI chat only, with `tools` in the request): while the user message
 *   is the last one, call tool NAME with ARGS_JSON; once the conversation holds the tool's result, answer
 *   text as usual (so an agent loop runs two model calls: the tool call, then the answer).
 * With `apiKeys`, a request with another key is answered 401. Every request is recorded (path, key,
 * body) for tests to inspect.
 */
export interface StubRequest {
  path: string;
  /** The key sent (`Authorization: Bearer` or `x-api-key`). */
  apiKey: string | undefined;
  body: Record<string, unknown>;
}

export interface LlmStub {
  /** `http://127.0.0.1:<port>`: Anthropic's base URL. */
  url: string;
  /** `<url>/v1`: OpenAI's base URL. */
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  /** `127.0.0.1:<port>`, for OUTBOUND_ALLOWED_HOSTS. */
  host: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export interface LlmStubOptions {
  /** Keys the stub accepts; any key when absent. */
  apiKeys?: readonly string[];
}

type Flavor = 'openai' | 'anthropic';

export async function startLlmStub(options: LlmStubOptions = {}): Promise<LlmStub> {
  const requests: StubRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(response, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      const path = (request.url ?? '').split('?')[0] ?? '';
      const apiKey = keyOf(request);
      requests.push({ path, apiKey, body });
      const flavor: Flavor = path === '/v1/messages' ? 'anthropic' : 'openai';
      if (!ROUTES.has(path) || request.method !== 'POST') {
        return send(response, 404, errorBody(flavor, 404, `no route ${request.method} ${path}`));
      }
      if (options.apiKeys && (!apiKey || !options.apiKeys.includes(apiKey))) {
        return send(response, 401, errorBody(flavor, 401, `Incorrect API key provided: ${mask(apiKey)}.`));
      }
      const prompt = lastUserText(path, body);
      const answer = () => respond(response, path, body, prompt);
      const slow = /\[\[stub:slow=(\d+)\]\]/.exec(prompt);
      if (!slow) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!response.destroyed) answer();
      }, Number(slow[1]));
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ROUTES = new Set(['/v1/chat/completions', '/v1/responses', '/v1/completions', '/v1/messages']);

function keyOf(request: IncomingMessage): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  return bearer?.[1];
}

/** As OpenAI echoes a wrong key: its first and last characters only. */
const mask = (key: string | undefined) => (key ? `${key.slice(0, 3)}${'*'.repeat(10)}${key.slice(-4)}` : '');

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function respond(response: ServerResponse, path: string, body: Record<string, unknown>, prompt: string) {
  const flavor: Flavor = path === '/v1/messages' ? 'anthropic' : 'openai';
  const status = /\[\[stub:status=(\d{3})\]\]/.exec(prompt);
  if (status) return send(response, Number(status[1]), errorBody(flavor, Number(status[1])));
  if (prompt.includes('[[stub:quota]]')) {
    return flavor === 'openai'
      ? send(response, 429, {
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
        })
      : send(response, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'Your credit balance is too low to access the Anthropic API.',
          },
        });
  }
  const reply = /\[\[stub:reply=([\s\S]*?)\]\]/.exec(prompt);
  const text = reply ? (reply[1] ?? '') : prompt;
  const model = typeof body.model === 'string' ? body.model : 'stub-model';
  const usage = { input: words(prompt), output: words(text) };
  const toolCall = path === '/v1/chat/completions' ? pendingToolCall(body, prompt) : undefined;
  if (toolCall) {
    return send(response, 200, {
      id: 'chatcmpl_stub',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'call_stub', type: 'function', function: toolCall }],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: words(toolCall.arguments),
        total_tokens: usage.input + words(toolCall.arguments),
      },
    });
  }
  switch (path) {
    case '/v1/messages':
      return send(response, 200, {
        id: 'msg_stub',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      });
    case '/v1/responses':
      return send(response, 200, {
        id: 'resp_stub',
        object: 'response',
        created_at: 0,
        status: 'completed',
        model,
        output: [
          {
            id: 'msg_stub',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ],
        usage: {
          input_tokens: usage.input,
          output_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      });
    case '/v1/completions':
      return send(response, 200, {
        id: 'cmpl_stub',
        object: 'text_completion',
        created: 0,
        model,
        choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      });
    default:
      return send(response, 200, {
        id: 'chatcmpl_stub',
        object: 'chat.completion',
        created: 0,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      });
  }
}

/** The `[[stub:tool=...]]` call to answer: only with `tools` offered and the user message still last. */
function pendingToolCall(body: Record<string, unknown>, prompt: string) {
  const directive = /\[\[stub:tool=([^\s\]]+)\s*([\s\S]*?)\]\]/.exec(prompt);
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  if (!directive || !Array.isArray(body.tools) || messages.at(-1)?.role !== 'user') return undefined;
  return { name: directive[1] ?? '', arguments: directive[2] || '{}' };
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

const OPENAI_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Forbidden.' },
  404: { type: 'invalid_request_error', code: null, message: 'Not found.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests.' },
};
const ANTHROPIC_ERRORS: Record<number, { type: string; message: string }> = {
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use this resource.' },
  404: { type: 'not_found_error', message: 'Not found.' },
  429: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function errorBody(flavor: Flavor, status: number, message?: string): unknown {
  if (flavor === 'anthropic') {
    const known = ANTHROPIC_ERRORS[status] ?? { type: 'api_error', message: 'Internal server error' };
    return { type: 'error', error: { type: known.type, message: message ?? known.message } };
  }
  const known = OPENAI_ERRORS[status] ?? {
    type: 'server_error',
    code: null,
    message: 'The server had an error.',
  };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

/** The text of the last user message (or the prompt / input) of any of the four request shapes. */
export function lastUserText(path: string, body: Record<string, unknown>): string {
  if (path === '/v1/completions') return textOfContent(body.prompt);
  if (path === '/v1/responses') {
    if (typeof body.input === 'string') return body.input;
    const items = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const user = items.filter((item) => item?.role === 'user').at(-1);
    return textOfContent(user?.content);
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  return textOfContent(messages.filter((message) => message?.role === 'user').at(-1)?.content);
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

import { type OpenAIApi, openAIApiOf, type ProviderAnswer } from './answer.ts';
import type { Credential } from './credentials.ts';
import { postToProvider, replyJson } from './transport.ts';

/**
 * OpenAI's Chat Completions, Responses or legacy Completions API by plain HTTP, chosen by the request
 * body's shape (what `llm_kwargs` built). The body is already OpenAI's; all a client library would add
 * is retries (a node's attempt is the retry unit here) and 395 KB to the node worker's bundle
 * (docs/decisions.md). The base URL carries the version (`https://api.openai.com/v1`).
 */
const PATHS: Record<OpenAIApi, string> = {
  'chat-completions': '/chat/completions',
  responses: '/responses',
  completions: '/completions',
};

export async function callOpenAI(
  credential: Credential,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const api = openAIApiOf(body);
  const reply = await postToProvider(
    credential,
    `${credential.baseUrl}${PATHS[api]}`,
    { authorization: `Bearer ${credential.apiKey}` },
    body,
    timeoutMs,
  );
  const response = replyJson(credential, reply);
  return { text: openAIText(api, response), response };
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** The answer's text: the first choice's (chat, completions), or every output text part (Responses). */
export function openAIText(api: OpenAIApi, response: Json): string {
  const [choice] = list(response.choices);
  switch (api) {
    case 'completions':
      return typeof choice?.text === 'string' ? choice.text : '';
    case 'chat-completions': {
      const content = (choice?.message as Json | undefined)?.content;
      return typeof content === 'string' ? content : '';
    }
    case 'responses':
      if (typeof response.output_text === 'string') return response.output_text;
      return list(response.output)
        .flatMap((item) => list(item.content))
        .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
        .map((part) => part.text as string)
        .join('');
  }
}

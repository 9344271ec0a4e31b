import type { TestService } from './local-service.ts';

/** Bodies and calls for prompt-registry tests. */

export function completion(text: string) {
  return { type: 'completion', content: [{ type: 'text', text }] };
}

export function chat(system: string, user = '{question}') {
  return {
    type: 'chat',
    messages: [
      { role: 'system', content: [{ type: 'text', text: system }] },
      { role: 'user', content: [{ type: 'text', text: user }] },
    ],
    input_variables: ['question'],
  };
}

export const OPENAI_MODEL = { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0.2 } };

/** A valid POST /rest/prompt-templates body; `extra` merges at the top level. */
export function publishBody(
  name: string,
  template: Record<string, unknown> = chat(`You are ${name}.`),
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    prompt_template: { prompt_name: name },
    prompt_version: { prompt_template: template, commit_message: 'test', metadata: { model: OPENAI_MODEL } },
    ...extra,
  };
}

/** Publishes and fails loudly unless the publish answered 200. */
export async function publish(
  service: TestService,
  name: string,
  template?: Record<string, unknown>,
  extra?: Record<string, unknown>,
  key?: string,
) {
  const response = await service.call('POST', '/rest/prompt-templates', {
    body: publishBody(name, template, extra),
    key,
  });
  if (response.status !== 200) {
    throw new Error(`publish ${name} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

/** A unique name per call, so tests sharing one service do not see each other's templates. */
let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** Publishes through the domain function as the route does (validated body): for integration tests. */
export async function publishDirect(
  workspaceId: number,
  name: string,
  template?: Record<string, unknown>,
  extra?: Record<string, unknown>,
) {
  const { validate } = await import('#shared/platform/http.ts');
  const { publishBodySchema } = await import('#shared/prompts/schemas.ts');
  const { publishPromptTemplate } = await import('#shared/prompts/publish.ts');
  return publishPromptTemplate(
    workspaceId,
    validate(publishBodySchema, publishBody(name, template, extra), 'body'),
  );
}

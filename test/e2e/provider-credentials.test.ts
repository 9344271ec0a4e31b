import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { PROVIDER_CREDENTIALS_FILE } from '#infra/local/service.ts';
import { ENV } from '#shared/platform/config.ts';
import { resetDeploymentCredentials } from '#shared/providers/deployment-credentials.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat } from '#test/support/prompts.ts';
import { runToResults } from '#test/support/workflows.ts';

/**
 * The deployment's provider keys from its provider credentials secret, through the local gateway: no
 * OPENAI_API_KEY / ANTHROPIC_API_KEY in the environment, the data directory's provider-credentials.json
 * served by the local Secrets Manager, read by the workflow-node worker under its row's grants.
 */
const SECRET_OPENAI_KEY = 'sk-from-the-secret-0001';
const dataDir = mkdtempSync(join(tmpdir(), 'promptops-provider-credentials-'));
const NAMES = [ENV.openaiApiKey, ENV.anthropicApiKey, ENV.openaiBaseUrl, ENV.anthropicBaseUrl] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

let service: TestService;
let stub: LlmStub;
beforeAll(async () => {
  writeFileSync(
    join(dataDir, PROVIDER_CREDENTIALS_FILE),
    JSON.stringify({ OPENAI_API_KEY: SECRET_OPENAI_KEY }),
  );
  for (const name of NAMES) delete process.env[name];
  resetDeploymentCredentials();
  [service, stub] = await Promise.all([startTestService({ dataDir }), startLlmStub()]);
  process.env[ENV.openaiBaseUrl] = stub.openaiBaseUrl;
  process.env[ENV.anthropicBaseUrl] = stub.anthropicBaseUrl;
});
afterAll(async () => {
  await Promise.all([service?.stop(), stub?.close()]);
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetDeploymentCredentials();
  rmSync(dataDir, { recursive: true, force: true });
});

const promptNode = (name: string, provider: string, model: string) => ({
  name,
  node_type: 'PROMPT_TEMPLATE',
  configuration: {
    inline_template: {
      prompt_template: chat('You are terse.', `${name}: {question}`),
      metadata: { model: { provider, name: model } },
    },
  },
  dependencies: ['question'],
  is_output_node: true,
});

describe("the deployment's provider credentials secret", () => {
  it('gives LLM nodes the key it holds, and PROVIDER_AUTH_ERROR for a provider it has none for', async () => {
    const created = await service.call('POST', '/rest/workflows', {
      body: {
        name: 'deployment-keys',
        required_input_variables: { question: 'string' },
        nodes: [
          promptNode('gpt', 'openai', 'gpt-4o'),
          promptNode('claude', 'anthropic', 'claude-sonnet-4-5'),
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const results = await runToResults(service, 'deployment-keys', { question: 'hi' });
    expect(results.status).toBe(200);
    expect(results.body.gpt).toMatchObject({ status: 'SUCCESS', value: 'gpt: hi', error_message: null });
    expect(results.body.claude).toMatchObject({ status: 'FAILED', value: null });
    expect(results.body.claude.error_message).toMatch(/^PROVIDER_AUTH_ERROR: no anthropic API key/);
    expect(stub.requests.map((request) => [request.path, request.apiKey])).toEqual([
      ['/v1/chat/completions', SECRET_OPENAI_KEY],
    ]);
    // The key is in no answer.
    expect(JSON.stringify(results.body)).not.toContain(SECRET_OPENAI_KEY);
  });
});

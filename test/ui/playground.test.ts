import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { logRequestBody } from '#test/support/local-service.ts';
import { chat, publish, uniqueName } from '#test/support/prompts.ts';
import { checkA11y, describeUi, signIn, type UiContext } from './support/browser.ts';

/**
 * The playground against the loopback LLM stub (the deployment's provider keys and base URLs point at
 * it, as in test/e2e/replay.test.ts): a request edited and run, a prompt version run on two models side
 * by side, the edits saved as a new version after their diff.
 */
const OPENAI_KEY = 'sk-playground-openai-0001';
const ENV = {
  OPENAI_API_KEY: OPENAI_KEY,
  ANTHROPIC_API_KEY: 'sk-ant-playground-0002',
} as const;
let stub: LlmStub;

beforeAll(async () => {
  stub = await startLlmStub();
  Object.assign(process.env, ENV, {
    OPENAI_BASE_URL: stub.openaiBaseUrl,
    ANTHROPIC_BASE_URL: stub.anthropicBaseUrl,
  });
});
afterAll(async () => {
  for (const name of [...Object.keys(ENV), 'OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'REPLAY_SYNC_LIMIT_MS'])
    delete process.env[name];
  await stub?.close();
});

/** A published prompt and a log of its version 1 (the user message rendered from `question`). */
async function seed(ui: UiContext, question: string) {
  const name = uniqueName('playground');
  await publish(ui.service, name, chat('Be terse.'));
  const now = new Date();
  const logged = await ui.service.call('POST', '/log-request', {
    body: logRequestBody({
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be terse.' }] },
          { role: 'user', content: [{ type: 'text', text: question }] },
        ],
      },
      parameters: { temperature: 0.2 },
      prompt_name: name,
      prompt_version_number: 1,
      prompt_input_variables: { question },
      request_start_time: new Date(now.getTime() - 1000).toISOString(),
      request_end_time: now.toISOString(),
    }),
  });
  expect(logged.status, JSON.stringify(logged.body)).toBe(201);
  return { name, logId: (logged.body as { id: number }).id };
}

const userTexts = (body: Record<string, unknown>) =>
  (body.messages as { role: string; content: unknown }[]).map((message) => [
    message.role,
    typeof message.content === 'string'
      ? message.content
      : (message.content as { text?: string }[]).map((part) => part.text ?? '').join(''),
  ]);

describeUi('dashboard playground', (ui) => {
  it('opens a request with "Replay with changes", edits messages and parameters, runs it and shows answer, usage, cost and latency', async () => {
    const { logId } = await seed(ui, 'Say hello');
    stub.requests.length = 0;
    const page = await ui.newPage();
    await page.goto(`/ui/requests?sel=${logId}`);
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'Replay with changes' }).click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('request')).toBe(String(logId));

    // The conversation as logged, editable: change the question, add a message, move it up, remove none.
    await expect.poll(() => page.getByLabel('Content of message 2').inputValue()).toBe('Say hello');
    await page.getByLabel('Content of message 2').fill('Say <b>goodbye</b>');
    await page.getByRole('button', { name: 'Add message' }).click();
    await page.getByLabel('Role of message 3').selectOption('user');
    await page.getByLabel('Content of message 3').fill('Context first.');
    await page.getByRole('button', { name: 'Up message 3' }).click();
    await page.getByRole('button', { name: 'Down message 2' }).click();
    await page.getByRole('button', { name: 'Add message' }).click();
    await page.getByRole('button', { name: 'Remove message 4' }).click();
    await expect.poll(() => page.getByLabel('Content of message 3').inputValue()).toBe('Context first.');
    await page.getByRole('button', { name: 'Up message 3' }).click();
    await page.getByLabel('Temperature').fill('0.7');
    await page.getByLabel('Max tokens').fill('64');
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText('SUCCESS').waitFor();
    // The stub echoes the last user message: the edited one, as text.
    expect(await result.locator('.playground-answer').textContent()).toBe('Say <b>goodbye</b>');
    expect(await result.locator('.playground-answer b').count()).toBe(0);
    const facts = (await result.locator('.playground-facts').textContent()) ?? '';
    expect(facts).toMatch(/Tokens\s*\d+ in \/ \d+ out/);
    expect(facts).toMatch(/Cost\s*\$\d/);
    expect(facts).toMatch(/Latency\s*\d/);
    expect(facts).toContain('gpt-4o (openai)');

    expect(stub.requests).toHaveLength(1);
    const sent = stub.requests[0]!;
    expect(sent.apiKey).toBe(OPENAI_KEY);
    // Max tokens in the target's own spelling (Chat Completions: max_completion_tokens).
    expect(sent.body).toMatchObject({ model: 'gpt-4o', temperature: 0.7, max_completion_tokens: 64 });
    expect(userTexts(sent.body)).toEqual([
      ['system', 'Be terse.'],
      ['user', 'Context first.'],
      ['user', 'Say <b>goodbye</b>'],
    ]);
    // The provider key is write-only: nowhere on the page.
    expect(await page.content()).not.toContain(OPENAI_KEY);

    // The new log is a replay of the original.
    const newId = Number(
      (await result.getByRole('link', { name: /^request \d+$/ }).textContent())?.split(' ')[1],
    );
    const replayed = await ui.service.call('GET', `/api/public/v2/requests/${newId}`);
    expect(replayed.body).toMatchObject({ replay_of: logId, status: 'SUCCESS' });
    expect(await checkA11y(page, 'playground-request')).toEqual([]);
  });

  it('shows progress while a slow run goes on as a job (202) and its answer when the job ends', async () => {
    const { logId } = await seed(ui, 'Take your time [[stub:slow=1200]]');
    // The call's window is the limit less the port's one-second margin: 150 ms, so the replay answers 202.
    process.env.REPLAY_SYNC_LIMIT_MS = '1150';
    try {
      const page = await ui.newPage();
      await page.goto(`/ui/playground?request=${logId}`);
      await signIn(page, ui.service.apiKey);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const result = page.getByRole('region', { name: 'Result' });
      await result.getByText(/Running as a job \(request \d+\)/).waitFor();
      expect(await result.getByRole('progressbar').count()).toBe(1);
      await result.getByText('SUCCESS').waitFor({ timeout: 60_000 });
      expect(await result.locator('.playground-answer').textContent()).toBe(
        'Take your time [[stub:slow=1200]]',
      );
      expect(await result.getByRole('progressbar').count()).toBe(0);
    } finally {
      delete process.env.REPLAY_SYNC_LIMIT_MS;
    }
  });

  it('opens a prompt version from Prompts and runs it on two models side by side, each with its own result', async () => {
    const { name } = await seed(ui, 'Compare us');
    stub.requests.length = 0;
    const page = await ui.newPage();
    await page.goto(`/ui/prompts/${encodeURIComponent(name)}?version=1`);
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'Open in playground' }).click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ prompt: name, version: '1' });
    // The template's text, with its variable.
    await expect.poll(() => page.getByLabel('Content of message 2').inputValue()).toBe('{question}');

    await page.getByLabel('Side by side on two models').check();
    await page.getByLabel('Model B provider').selectOption('anthropic');
    await page.getByLabel('Model B name').fill('claude-sonnet-4-5');
    await expect.poll(() => new URL(page.url()).searchParams.get('model_b')).toBe('claude-sonnet-4-5');
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    const columnA = page.getByRole('region', { name: 'Model A' });
    const columnB = page.getByRole('region', { name: 'Model B' });
    await columnA.getByText('SUCCESS').waitFor();
    await columnB.getByText('SUCCESS').waitFor();
    // The version rendered with its log's variables, on each provider.
    expect(await columnA.locator('.playground-answer').textContent()).toBe('Compare us');
    expect(await columnB.locator('.playground-answer').textContent()).toBe('Compare us');
    expect(await columnA.locator('.playground-facts').textContent()).toContain('gpt-4o (openai)');
    expect(await columnB.locator('.playground-facts').textContent()).toContain(
      'claude-sonnet-4-5 (anthropic)',
    );
    expect(stub.requests.map((request) => request.path).sort()).toEqual([
      '/v1/chat/completions',
      '/v1/messages',
    ]);

    // Side by side: two columns next to each other.
    const a = await columnA.boundingBox();
    const b = await columnB.boundingBox();
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    expect(await checkA11y(page, 'playground-side-by-side')).toEqual([]);

    // Reload keeps the view (the source and both models are in the URL).
    await page.reload();
    await expect.poll(() => page.getByLabel('Model B name').inputValue()).toBe('claude-sonnet-4-5');
  });

  it('saves the edited template as a new version after showing its diff; the version is in Prompts and the API', async () => {
    const { name } = await seed(ui, 'Save me');
    const page = await ui.newPage();
    await page.goto(`/ui/playground?prompt=${encodeURIComponent(name)}&version=1`);
    await signIn(page, ui.service.apiKey);
    await expect.poll(() => page.getByLabel('Content of message 1').inputValue()).toBe('Be terse.');
    await page.getByLabel('Content of message 1').fill('Be terse and kind.');
    await page.getByLabel('Temperature').fill('0.4');
    await page.getByLabel('Commit message').fill('kinder');
    await page.getByRole('button', { name: 'Review changes' }).click();

    const review = page.getByRole('region', { name: 'Changes from version 1' });
    await review.waitFor();
    // The word diff of the message and the line diff of the settings.
    const message = review.getByRole('article', { name: 'Message 1: system' });
    expect(await message.locator('ins').allTextContents()).toEqual([' and kind']);
    expect((await review.locator('del').allTextContents()).join('')).toContain('"temperature": 0.2');
    expect((await review.locator('ins').allTextContents()).join('')).toContain('"temperature": 0.4');
    expect(await review.getByRole('article', { name: 'Message 2: user' }).textContent()).toContain(
      'unchanged',
    );
    expect(await checkA11y(page, 'playground-save-review')).toEqual([]);
    // Nothing is written before the second click.
    expect(
      (await ui.service.call('GET', `/prompt-templates/${encodeURIComponent(name)}`)).body,
    ).toMatchObject({
      version: 1,
    });

    await page.getByRole('button', { name: 'Publish new version' }).click();
    await page.getByRole('status').getByText(`${name} version 2`).waitFor();
    const saved = await ui.service.call('GET', `/prompt-templates/${encodeURIComponent(name)}`, {
      query: { version: 2, resolve_snippets: false },
    });
    expect(saved.body).toMatchObject({
      version: 2,
      commit_message: 'kinder',
      prompt_template: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be terse and kind.' }] },
          { role: 'user', content: [{ type: 'text', text: '{question}' }] },
        ],
        input_variables: ['question'],
      },
      metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0.4 } } },
    });

    // The link opens the new version in Prompts.
    await page.getByRole('link', { name: `${name} version 2` }).click();
    await page.getByRole('heading', { name: 'Version 2' }).waitFor();
    expect(await page.locator('.prompts-main').textContent()).toContain('Be terse and kind.');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDynamoCommands, type SentCommand } from '#test/support/dynamo-commands.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, OPENAI_MODEL, publish, uniqueName } from '#test/support/prompts.ts';

/**
 * POST /log-request naming a prompt template: the log is linked to the template version of the
 * caller's workspace and the answer carries that version; an unknown one is a 422. A log that names
 * no prompt still costs one DynamoDB write and nothing else.
 */
let service: TestService;
let name: string;
let template: { id: number; v1: number; v2: number };
let sent: SentCommand[];

beforeAll(async () => {
  service = await startTestService();
  name = uniqueName('logged');
  const v1 = await publish(service, name, chat('First'));
  const v2 = await publish(service, name, chat('Second'));
  template = { id: v1.id, v1: v1.prompt_version_id, v2: v2.prompt_version_id };
  // The handlers run in this process: count what they send to DynamoDB.
  sent = await recordDynamoCommands();
});
afterAll(() => service?.stop());

const log = (overrides: Record<string, unknown>) =>
  service.call('POST', '/log-request', { body: logRequestBody(overrides) });

describe('POST /log-request with a prompt', () => {
  it('links the latest version by prompt_name and answers the version object', async () => {
    const response = await log({ prompt_name: name, prompt_input_variables: { question: 'why?' } });
    expect(response.status).toBe(201);
    expect(response.body.prompt_version).toEqual({
      id: template.v2,
      prompt_id: template.id,
      prompt_name: name,
      version_number: 2,
      prompt_template: { ...chat('Second'), template_format: 'f-string' },
      metadata: { model: OPENAI_MODEL },
      commit_message: 'test',
      created_at: expect.stringMatching(/Z$/),
    });
    const stored = await service.call('GET', `/api/public/v2/requests/${response.body.id}`);
    expect(stored.body).toMatchObject({
      prompt_id: template.id,
      prompt_name: name,
      prompt_version_number: 2,
    });
  });

  it('links the given version by prompt_id', async () => {
    const response = await log({ prompt_id: template.id, prompt_version_number: 1 });
    expect(response.status).toBe(201);
    expect(response.body.prompt_version).toMatchObject({ id: template.v1, version_number: 1 });
    expect(response.body.prompt_version.prompt_template.messages[0].content[0].text).toBe('First');
  });

  it('accepts prompt_id and prompt_name together when they agree', async () => {
    const response = await log({ prompt_id: template.id, prompt_name: name });
    expect(response.body.prompt_version).toMatchObject({ version_number: 2 });
  });

  it.each([
    ['an unknown prompt_name', () => ({ prompt_name: uniqueName('nope') }), 'prompt_name'],
    ['an unknown prompt_id', () => ({ prompt_id: 987_654_321 }), 'prompt_id'],
    [
      'a version the template does not have',
      () => ({ prompt_name: name, prompt_version_number: 3 }),
      'prompt_version_number',
    ],
    [
      'a prompt_name that is not the template of prompt_id',
      () => ({ prompt_id: template.id, prompt_name: 'other' }),
      'prompt_name',
    ],
  ])('answers 422 for %s and logs nothing', async (_, overrides, field) => {
    const before = await service.countItems();
    const response = await log(overrides());
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', field]);
    expect(await service.countItems()).toBe(before);
  });

  it('keeps a log without a prompt at one write and no read', async () => {
    await log({}); // the id block is reserved by an earlier log; this one warms nothing else either
    sent.length = 0;
    const response = await log({});
    expect(response.status).toBe(201);
    expect(response.body.prompt_version).toBeNull();
    expect(sent.map((command) => command.name)).toEqual(['PutItemCommand']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publish, uniqueName } from '#test/support/prompts.ts';

/**
 * Workspace isolation: a key of workspace B sees nothing of workspace A's templates, by id, name, label
 * id or external id, gets 404 (never 403, which would reveal that the entity exists), and changes nothing.
 */
let service: TestService;
let keyB: string;
let name: string;
let templateId: number;
let labelId: number;
const mapping = { source: 'crm', external_id: 'ISOLATED-1' };

beforeAll(async () => {
  service = await startTestService();
  keyB = await service.otherWorkspaceKey('workspace-b');

  name = uniqueName('secret');
  ({ id: templateId } = await publish(service, name, completion('A only'), {
    release_labels: ['prod'],
    external_ids: [mapping],
  }));
  await publish(service, name, completion('A only, v2'));
  const labels = await service.call('GET', `/prompt-templates/${name}/labels`);
  labelId = labels.body.release_labels[0].release_label_id;
});
afterAll(() => service?.stop());

const asB = (method: string, path: string, body?: unknown) => service.call(method, path, { key: keyB, body });

describe("a key of workspace B on workspace A's template", () => {
  it.each([
    ['GET by id', () => asB('GET', `/prompt-templates/${templateId}`)],
    ['GET by name', () => asB('GET', `/prompt-templates/${encodeURIComponent(name)}`)],
    ['GET by name and label', () => asB('GET', `/prompt-templates/${encodeURIComponent(name)}?label=prod`)],
    ['GET labels by id', () => asB('GET', `/prompt-templates/${templateId}/labels`)],
    ['GET labels by name', () => asB('GET', `/prompt-templates/${encodeURIComponent(name)}/labels`)],
    ['GET versions by id', () => asB('GET', `/prompt-templates/${templateId}/versions`)],
    ['GET versions by name', () => asB('GET', `/prompt-templates/${encodeURIComponent(name)}/versions`)],
    [
      'POST a label',
      () => asB('POST', `/prompts/${templateId}/label`, { name: 'b', prompt_version_number: 1 }),
    ],
    ['PATCH the label', () => asB('PATCH', `/prompt-labels/${labelId}`, { prompt_version_number: 2 })],
    ['DELETE the label', () => asB('DELETE', `/prompt-labels/${labelId}`)],
    ['GET external ids', () => asB('GET', `/prompt-templates/${templateId}/external-ids`)],
    ['POST an external id', () => asB('POST', `/prompt-templates/${templateId}/external-ids`, mapping)],
    [
      'DELETE an external id',
      () =>
        asB(
          'DELETE',
          `/prompt-templates/${templateId}/external-ids/${mapping.source}/${mapping.external_id}`,
        ),
    ],
  ])('%s answers 404', async (_, call) => {
    const response = await call();
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: 'not_found' });
  });

  it('left A untouched', async () => {
    const labels = await service.call('GET', `/prompt-templates/${templateId}/labels`);
    expect(labels.body.release_labels).toEqual([
      expect.objectContaining({ release_label: 'prod', prompt_version_number: 1 }),
    ]);
    expect(
      (await service.call('GET', `/prompt-templates/${templateId}/external-ids`)).body.external_ids,
    ).toEqual([mapping]);
  });

  it('does not list it, nor find it by its external id', async () => {
    const all = await asB('GET', '/prompt-templates');
    expect(all.body.items.map((item: { id: number }) => item.id)).not.toContain(templateId);
    const byXid = await asB('GET', `/prompt-templates?external_source=crm&external_id=ISOLATED-1`);
    expect(byXid.body.total).toBe(0);
  });

  it('lets B publish its own template of the same name and its own mapping', async () => {
    const response = await asB('POST', '/rest/prompt-templates', {
      prompt_template: { prompt_name: name },
      prompt_version: { prompt_template: completion('B') },
      external_ids: [mapping],
    });
    expect(response.status).toBe(200);
    expect(response.body.version_number).toBe(1);
    expect(response.body.id).not.toBe(templateId);
    expect(
      (await asB('GET', `/prompt-templates/${encodeURIComponent(name)}`)).body.prompt_template.content[0]
        .text,
    ).toBe('B');
    expect((await service.call('GET', `/prompt-templates/${encodeURIComponent(name)}`)).body.version).toBe(2);
  });

  it("answers 422 when B logs a request naming A's template", async () => {
    const body = {
      provider: 'openai',
      model: 'gpt-4o',
      input: completion('x'),
      output: completion('y'),
      request_start_time: '2024-01-01T00:00:00Z',
      request_end_time: '2024-01-01T00:00:01Z',
      prompt_id: templateId,
    };
    expect((await asB('POST', '/log-request', body)).status).toBe(422);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, completion, publish, uniqueName } from '#test/support/prompts.ts';

/**
 * What the dashboard's Prompts screen reads and writes beyond the SDK's routes, through the local
 * gateway: a template's version timeline (GET .../versions) and creating a label on a version (POST
 * /prompts/{prompt_id}/label, PromptLayer's create_prompt_label). Answers are checked against their
 * declared schemas by the test service.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

let name: string;
let template: { id: number; versionIds: number[] };
beforeEach(async () => {
  name = uniqueName('timeline');
  const versionIds: number[] = [];
  const first = await publish(service, name, chat('one'), { release_labels: ['prod', 'beta'] });
  versionIds.push(first.prompt_version_id);
  for (const [i, text] of ['two', 'three', 'four', 'five'].entries()) {
    const body = i === 1 ? completion(text) : chat(text);
    const extra = i === 2 ? { release_labels: ['staging'] } : {};
    versionIds.push((await publish(service, name, body, extra)).prompt_version_id);
  }
  template = { id: first.id, versionIds };
});

const versions = (identifier: string | number, query: Record<string, number> = {}) =>
  service.call('GET', `/prompt-templates/${encodeURIComponent(String(identifier))}/versions`, { query });

describe('GET /prompt-templates/{identifier}/versions', () => {
  it('lists the versions newest first with number, commit message, time, labels and model', async () => {
    const response = await versions(name);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ page: 1, per_page: 30, pages: 1, total: 5, has_next: false });
    const items = response.body.items;
    expect(items.map((item: { version_number: number }) => item.version_number)).toEqual([5, 4, 3, 2, 1]);
    expect(items[4]).toEqual({
      id: template.versionIds[0],
      version_number: 1,
      commit_message: 'test',
      created_at: expect.stringMatching(/Z$/),
      release_labels: ['beta', 'prod'],
      model: { provider: 'openai', name: 'gpt-4o' },
      template_type: 'chat',
    });
    expect(items[1]).toMatchObject({ version_number: 4, release_labels: ['staging'] });
    expect(items[2]).toMatchObject({ version_number: 3, template_type: 'completion', release_labels: [] });
    // No template bodies: a timeline of large versions stays small.
    expect(items[0]).not.toHaveProperty('prompt_template');
  });

  it('pages by number, the same by name or id', async () => {
    const second = await versions(template.id, { page: 2, per_page: 2 });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      page: 2,
      per_page: 2,
      pages: 3,
      total: 5,
      has_next: true,
      has_prev: true,
      next_num: 3,
      prev_num: 1,
    });
    expect(second.body.items.map((item: { id: number }) => item.id)).toEqual([
      template.versionIds[2],
      template.versionIds[1],
    ]);
    const last = await versions(name, { page: 3, per_page: 2 });
    expect(last.body.items.map((item: { version_number: number }) => item.version_number)).toEqual([1]);
    const past = await versions(name, { page: 4, per_page: 2 });
    expect(past.status).toBe(200);
    expect(past.body.items).toEqual([]);
  });

  it('shows a label where it was moved', async () => {
    const labels = await service.call('GET', `/prompt-templates/${name}/labels`);
    const prod = labels.body.release_labels.find(
      (row: { release_label: string }) => row.release_label === 'prod',
    );
    await service.call('PATCH', `/prompt-labels/${prod.release_label_id}`, {
      body: { prompt_version_number: 5 },
    });
    const items = (await versions(name)).body.items;
    expect(items[0].release_labels).toEqual(['prod']);
    expect(items[4].release_labels).toEqual(['beta']);
  });

  it('answers 404 for an unknown template and 422 for a bad page', async () => {
    expect((await versions(uniqueName('nope'))).status).toBe(404);
    expect((await versions(name, { page: 0 })).status).toBe(422);
    expect((await versions(name, { per_page: 101 })).status).toBe(422);
  });
});

describe('POST /prompts/{prompt_id}/label', () => {
  const createLabel = (body: unknown, promptId: number = template.id, key?: string) =>
    service.call('POST', `/prompts/${promptId}/label`, { body, key });

  it('creates a label on a version: 200 with the label object, readable by label, one created event', async () => {
    const response = await createLabel({ name: 'canary', prompt_version_number: 3 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.any(Number),
      name: 'canary',
      prompt_id: template.id,
      prompt_version_id: template.versionIds[2],
      prompt_version_number: 3,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const read = await service.call('GET', `/prompt-templates/${name}`, {
      query: { label: 'canary' },
      headers: { 'Cache-Control': 'no-cache' },
    });
    expect(read.body.version).toBe(3);
    const labels = await service.call('GET', `/prompt-templates/${name}/labels`);
    expect(labels.body.release_labels).toContainEqual({
      release_label: 'canary',
      release_label_id: response.body.id,
      prompt_version_id: template.versionIds[2],
      prompt_version_number: 3,
    });
    const created = service.messaging.events
      .map((event) => event.detail as { event_type: string; details: Record<string, unknown> })
      .filter((e) => e.event_type === 'prompt_template_label_created' && e.details.label === 'canary')
      .map((e) => e.details);
    expect(created).toEqual([
      {
        prompt_id: template.id,
        prompt_name: name,
        prompt_label_id: response.body.id,
        label: 'canary',
        prompt_version_id: template.versionIds[2],
        version_number: 3,
      },
    ]);
    // The new label moves and deletes like one made by a publish.
    const moved = await service.call('PATCH', `/prompt-labels/${response.body.id}`, {
      body: { prompt_version_number: 1 },
    });
    expect(moved.body.prompt_version_number).toBe(1);
    expect((await service.call('DELETE', `/prompt-labels/${response.body.id}`)).status).toBe(204);
  });

  it('answers 409 for a label the template already has, leaving it where it was', async () => {
    const response = await service.rejected('POST', `/prompts/${template.id}/label`, {
      body: { name: 'staging', prompt_version_number: 1 },
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      error: 'conflict',
      message: expect.stringMatching(/staging.*version 4/),
    });
    expect((await versions(name)).body.items[1].release_labels).toEqual(['staging']);
  });

  it('answers 404 for an unknown template or version, 422 for a bad body, 403 for a read-only key', async () => {
    expect(
      (
        await service.rejected('POST', '/prompts/987654321/label', {
          body: { name: 'x', prompt_version_number: 1 },
        })
      ).status,
    ).toBe(404);
    const noVersion = await service.rejected('POST', `/prompts/${template.id}/label`, {
      body: { name: 'x', prompt_version_number: 6 },
    });
    expect(noVersion.status).toBe(404);
    expect(noVersion.body.message).toMatch(/Version 6/);
    for (const body of [
      { name: 'x' },
      { prompt_version_number: 1 },
      { name: '', prompt_version_number: 1 },
    ]) {
      expect((await service.rejected('POST', `/prompts/${template.id}/label`, { body })).status).toBe(422);
    }
    const readOnly = await service.keyWithPermissions({ prompts: 'read' });
    const refused = await service.rejected('POST', `/prompts/${template.id}/label`, {
      body: { name: 'x', prompt_version_number: 1 },
      key: readOnly,
    });
    expect(refused.status).toBe(403);
  });
});

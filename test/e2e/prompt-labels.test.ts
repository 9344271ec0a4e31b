import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publish, publishBody, uniqueName } from '#test/support/prompts.ts';

/**
 * Release labels through the local gateway: listing a template's labels (with the ids PATCH takes),
 * moving one, deleting one, and the events each change puts on the bus.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

interface LabelRow {
  release_label: string;
  release_label_id: number;
  prompt_version_id: number;
  prompt_version_number: number;
}

async function labelsOf(identifier: string | number): Promise<Record<string, LabelRow>> {
  const response = await service.call('GET', `/prompt-templates/${identifier}/labels`);
  expect(response.status).toBe(200);
  return Object.fromEntries(response.body.release_labels.map((row: LabelRow) => [row.release_label, row]));
}

const eventsFor = (name: string) =>
  service.messaging.events
    .map(
      (event) =>
        event.detail as { event_type: string; details: Record<string, unknown>; workspace_id: number },
    )
    .filter((envelope) => envelope.details.prompt_name === name);

let name: string;
let template: { id: number; v1: number; v2: number; v3: number };
beforeEach(async () => {
  name = uniqueName('labelled');
  const v1 = await publish(service, name, completion('one'), { release_labels: ['prod', 'staging'] });
  const v2 = await publish(service, name, completion('two'), { release_labels: ['staging'] });
  const v3 = await publish(service, name, completion('three'));
  template = { id: v1.id, v1: v1.prompt_version_id, v2: v2.prompt_version_id, v3: v3.prompt_version_id };
});

describe('GET /prompt-templates/{identifier}/labels', () => {
  it('lists the labels by name or id with their ids and versions', async () => {
    const byName = await labelsOf(name);
    expect(byName).toEqual({
      prod: {
        release_label: 'prod',
        release_label_id: expect.any(Number),
        prompt_version_id: template.v1,
        prompt_version_number: 1,
      },
      staging: {
        release_label: 'staging',
        release_label_id: expect.any(Number),
        prompt_version_id: template.v2,
        prompt_version_number: 2,
      },
    });
    expect(await labelsOf(template.id)).toEqual(byName);
  });

  it('answers 404 for an unknown template', async () => {
    expect((await service.call('GET', `/prompt-templates/${uniqueName('nope')}/labels`)).status).toBe(404);
  });
});

describe('PATCH /prompt-labels/{prompt_label_id}', () => {
  it('moves the label and answers the label object with all fields', async () => {
    const { prod } = await labelsOf(name);
    const response = await service.call('PATCH', `/prompt-labels/${prod?.release_label_id}`, {
      body: { prompt_version_number: 3 },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: prod?.release_label_id,
      name: 'prod',
      prompt_id: template.id,
      prompt_version_id: template.v3,
      prompt_version_number: 3,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const read = await service.call('GET', `/prompt-templates/${name}`, { query: { label: 'prod' } });
    expect(read.body.version).toBe(3);
    expect(read.body.prompt_template.content[0].text).toBe('three');
  });

  it('moves a label back to an older version', async () => {
    const { staging } = await labelsOf(name);
    await service.call('PATCH', `/prompt-labels/${staging?.release_label_id}`, {
      body: { prompt_version_number: 1 },
    });
    expect((await labelsOf(name)).staging?.prompt_version_number).toBe(1);
  });

  it('answers 404 for a version the template does not have, and leaves the label where it was', async () => {
    const { prod } = await labelsOf(name);
    const response = await service.call('PATCH', `/prompt-labels/${prod?.release_label_id}`, {
      body: { prompt_version_number: 4 },
    });
    expect(response.status).toBe(404);
    expect(response.body.message).toMatch(/Version 4/);
    expect((await labelsOf(name)).prod?.prompt_version_number).toBe(1);
  });

  it('answers 404 for an unknown label id', async () => {
    const response = await service.call('PATCH', '/prompt-labels/987654321', {
      body: { prompt_version_number: 1 },
    });
    expect(response.status).toBe(404);
  });

  it.each([
    ['no version number', {}],
    ['version number 0', { prompt_version_number: 0 }],
    ['a version number as text', { prompt_version_number: 'two' }],
  ])('rejects %s with a 422', async (_, body) => {
    const { prod } = await labelsOf(name);
    const response = await service.call('PATCH', `/prompt-labels/${prod?.release_label_id}`, { body });
    expect(response.status).toBe(422);
  });

  it('rejects a label id that is not a positive integer with a 422', async () => {
    expect(
      (await service.call('PATCH', '/prompt-labels/abc', { body: { prompt_version_number: 1 } })).status,
    ).toBe(422);
  });
});

describe('DELETE /prompt-labels/{prompt_label_id}', () => {
  it('removes the label: reads by it are 404, its id is gone, a publish can create it again', async () => {
    const { staging } = await labelsOf(name);
    const response = await service.call('DELETE', `/prompt-labels/${staging?.release_label_id}`);
    // 204 with no body, as PromptLayer documents.
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    expect(Object.keys(await labelsOf(name))).toEqual(['prod']);
    expect(
      (await service.call('GET', `/prompt-templates/${name}`, { query: { label: 'staging' } })).status,
    ).toBe(404);
    expect((await service.call('DELETE', `/prompt-labels/${staging?.release_label_id}`)).status).toBe(404);
    expect(
      (
        await service.call('PATCH', `/prompt-labels/${staging?.release_label_id}`, {
          body: { prompt_version_number: 1 },
        })
      ).status,
    ).toBe(404);

    await publish(service, name, completion('four'), { release_labels: ['staging'] });
    const again = (await labelsOf(name)).staging;
    expect(again?.prompt_version_number).toBe(4);
    expect(again?.release_label_id).not.toBe(staging?.release_label_id);
  });
});

describe('label names that are Object.prototype properties', () => {
  const noCache = { 'Cache-Control': 'no-cache' };
  const byLabel = (label: string) =>
    service.call('GET', `/prompt-templates/${name}`, { query: { label }, headers: noCache });

  it.each(['valueOf', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'publishes, reads, moves and deletes a label named %s like any other',
    async (label) => {
      // A first publish creates the label with the template; the template of beforeEach gets it as a new label.
      const fresh = uniqueName(`proto-${label}`);
      const created = await service.call('POST', '/rest/prompt-templates', {
        body: publishBody(fresh, completion('fresh'), { release_labels: [label, 'prod'] }),
      });
      expect(created.status).toBe(200);
      expect(created.body.release_labels).toEqual([label, 'prod']);
      expect(Object.keys(await labelsOf(fresh)).sort()).toEqual([label, 'prod'].sort());

      const four = await publish(service, name, completion('four'), { release_labels: [label] });
      expect(four.release_labels).toEqual([label]);
      const five = await publish(service, name, completion('five'), { release_labels: [label, 'prod'] });
      expect(five.release_labels).toEqual([label, 'prod']);
      await publish(service, name, completion('six'));

      expect((await byLabel(label)).body).toMatchObject({ version: 5 });
      const row = (await labelsOf(name))[label];
      expect(row).toMatchObject({ release_label: label, prompt_version_number: 5 });
      const listed = await service.call('GET', '/prompt-templates', { query: { label, name } });
      expect(listed.body.items.map((item: { prompt_name: string }) => item.prompt_name)).toEqual([name]);

      const moved = await service.call('PATCH', `/prompt-labels/${row?.release_label_id}`, {
        body: { prompt_version_number: 2 },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ id: row?.release_label_id, name: label, prompt_version_number: 2 });
      expect((await byLabel(label)).body.prompt_template.content[0].text).toBe('two');

      expect((await service.call('DELETE', `/prompt-labels/${row?.release_label_id}`)).status).toBe(204);
      expect((await byLabel(label)).status).toBe(404);
      expect(Object.keys(await labelsOf(name)).sort()).toEqual(['prod', 'staging']);
      // Labels of names that are not a label answer 404 rather than an inherited property.
      expect((await byLabel('isPrototypeOf')).status).toBe(404);
    },
  );
});

describe('events', () => {
  it('puts version and label events on the bus in the webhook envelope', async () => {
    const { prod, staging } = await labelsOf(name);
    await service.call('PATCH', `/prompt-labels/${prod?.release_label_id}`, {
      body: { prompt_version_number: 3 },
    });
    await service.call('DELETE', `/prompt-labels/${staging?.release_label_id}`);

    const events = eventsFor(name);
    for (const envelope of events) {
      expect(envelope).toEqual({
        event_id: expect.stringMatching(/^ev_/),
        event_type: expect.any(String),
        details: expect.any(Object),
        user_id: expect.any(Number),
        user_name: null,
        user_email: null,
        workspace_id: service.workspaceId,
        timestamp: expect.stringMatching(/Z$/),
      });
    }
    const ofType = (type: string) =>
      events.filter((envelope) => envelope.event_type === type).map((e) => e.details);
    expect(ofType('prompt_template_version_created')).toEqual(
      [1, 2, 3].map((n) => ({
        prompt_id: template.id,
        prompt_name: name,
        prompt_version_id: template[`v${n}` as 'v1'],
        version_number: n,
      })),
    );
    expect(ofType('prompt_template_label_created')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          label: 'prod',
          prompt_label_id: prod?.release_label_id,
          version_number: 1,
        }),
        expect.objectContaining({
          label: 'staging',
          prompt_label_id: staging?.release_label_id,
          version_number: 1,
        }),
      ]),
    );
    expect(ofType('prompt_template_label_moved')).toEqual([
      {
        prompt_id: template.id,
        prompt_name: name,
        prompt_label_id: staging?.release_label_id,
        label: 'staging',
        prompt_version_id: template.v2,
        version_number: 2,
        previous_prompt_version_id: template.v1,
        previous_version_number: 1,
      },
      expect.objectContaining({
        label: 'prod',
        prompt_version_id: template.v3,
        version_number: 3,
        previous_version_number: 1,
      }),
    ]);
    expect(ofType('prompt_template_label_deleted')).toEqual([
      expect.objectContaining({
        label: 'staging',
        prompt_label_id: staging?.release_label_id,
        version_number: 2,
      }),
    ]);
  });

  it('puts no moved event when a label is moved onto the version it is on', async () => {
    const { prod } = await labelsOf(name);
    await service.call('PATCH', `/prompt-labels/${prod?.release_label_id}`, {
      body: { prompt_version_number: 1 },
    });
    expect(eventsFor(name).filter((e) => e.event_type === 'prompt_template_label_moved')).toHaveLength(1);
  });
});

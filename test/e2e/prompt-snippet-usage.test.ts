import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, completion, publish, uniqueName } from '#test/support/prompts.ts';

/** GET /prompt-templates/{identifier}/snippet-usage through the local gateway, from the index publish keeps. */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const usage = (identifier: string | number, query?: Record<string, string | number>) =>
  service.call('GET', `/prompt-templates/${encodeURIComponent(identifier)}/snippet-usage`, { query });

describe('GET /prompt-templates/{identifier}/snippet-usage', () => {
  it('lists the templates and versions referencing a snippet, the labels on them, and filters by snippet version', async () => {
    const snippet = uniqueName('greeting');
    const first = await publish(service, snippet, completion('Hello'), { release_labels: ['stable'] });
    await publish(service, snippet, completion('Hi'));
    const a = uniqueName('uses-latest');
    const b = uniqueName('uses-label');
    // a v1: the latest (snippet v2); a v2: pinned to v1; a v3: no reference. b v1: by label (v1).
    const a1 = await publish(service, a, chat(`@@@${snippet}@@@ and again @@@${snippet}@@@`), {
      release_labels: ['prod'],
    });
    await publish(service, a, chat(`@@@${snippet}@version_number:1@@@`), { release_labels: ['staging'] });
    await publish(service, a, chat('no snippet'), { release_labels: ['dev'] });
    const b1 = await publish(service, b, completion(`@@@${snippet}@label:stable@@@!`));
    // A reference through another snippet is that snippet's usage, not this one's.
    const outer = uniqueName('outer');
    await publish(service, outer, completion(`@@@${b}@@@`));

    const answer = await usage(snippet);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: expect.any(String),
      snippet_name: snippet,
      snippet_usage: [
        { prompt_registry_id: a1.id, prompt_name: a, version_numbers: [1, 2] },
        { prompt_registry_id: b1.id, prompt_name: b, version_numbers: [1] },
      ],
      total_prompts_using_snippet: 2,
      label_usage: [
        { prompt_registry_id: a1.id, prompt_name: a, label_name: 'prod' },
        { prompt_registry_id: a1.id, prompt_name: a, label_name: 'staging' },
      ],
      total_labels_using_snippet: 2,
    });

    // By id too; only the uses that resolved to snippet version 1.
    const pinned = await usage(first.id, { prompt_version_number: 1 });
    expect(pinned.body.snippet_usage).toEqual([
      { prompt_registry_id: a1.id, prompt_name: a, version_numbers: [2] },
      { prompt_registry_id: b1.id, prompt_name: b, version_numbers: [1] },
    ]);
    expect(pinned.body.label_usage).toEqual([
      { prompt_registry_id: a1.id, prompt_name: a, label_name: 'staging' },
    ]);

    // Moving a label onto a version without the reference takes it out of the label usage.
    const { body: labels } = await service.call('GET', `/prompt-templates/${a}/labels`);
    const prod = labels.release_labels.find(
      (label: { release_label: string }) => label.release_label === 'prod',
    );
    await service.call('PATCH', `/prompt-labels/${prod.release_label_id}`, {
      body: { prompt_version_number: 3 },
    });
    expect(
      (await usage(snippet)).body.label_usage.map((label: { label_name: string }) => label.label_name),
    ).toEqual(['staging']);
  });

  it('answers an unused template with empty lists, and 404 for an unknown template or one of another workspace', async () => {
    const lonely = uniqueName('lonely');
    await publish(service, lonely, completion('alone'));
    expect((await usage(lonely)).body).toMatchObject({
      snippet_usage: [],
      total_prompts_using_snippet: 0,
      label_usage: [],
      total_labels_using_snippet: 0,
    });
    expect(
      (await service.rejected('GET', `/prompt-templates/${uniqueName('none')}/snippet-usage`)).status,
    ).toBe(404);
    const otherKey = await service.otherWorkspaceKey('snippet-usage-other');
    expect(
      (await service.rejected('GET', `/prompt-templates/${lonely}/snippet-usage`, { key: otherKey })).status,
    ).toBe(404);
    expect(
      (
        await service.rejected('GET', `/prompt-templates/${lonely}/snippet-usage`, {
          query: { prompt_version_number: 0 },
        })
      ).status,
    ).toBe(422);
  });
});

import { describe, expect, it } from 'vitest';
import type { TemplateHead, VersionRecord } from '#shared/prompts/records.ts';
import {
  toLabelsView,
  toLabelView,
  toListItem,
  toPublishView,
  toRawTemplateView,
} from '#shared/prompts/views.ts';

const T0 = Date.UTC(2025, 2, 15, 10, 30);
const head: TemplateHead = {
  id: 17,
  name: 'support-response',
  tags: ['support'],
  folder_id: null,
  created_at: T0,
  updated_at: T0 + 60_000,
  labels: {
    staging: { id: 5, prompt_version_id: 102, version_number: 2, created_at: T0, updated_at: T0 },
    prod: { id: 4, prompt_version_id: 101, version_number: 1, created_at: T0, updated_at: T0 + 1_000 },
  },
  has_external_ids: false,
};
const version: VersionRecord = {
  id: 102,
  prompt_id: 17,
  prompt_name: 'support-response',
  number: 2,
  prompt_template: { type: 'completion', content: [{ type: 'text', text: '@@@intro@@@ hi' }] },
  metadata: { model: { provider: 'openai', name: 'gpt-4o' }, team: 'cx' },
  commit_message: 'Improve support tone',
  created_at: T0 + 60_000,
};

describe('response mapping', () => {
  it('answers the raw template with its required fields, llm_kwargs only when rendered', () => {
    const expanded = { type: 'completion' as const, content: [{ type: 'text', text: 'Hello hi' }] };
    const snippets = [{ prompt_name: 'intro', version: 3, label: null }];
    const view = toRawTemplateView(42, head, version, expanded, snippets);
    expect(view).toEqual({
      success: true,
      id: 17,
      prompt_name: 'support-response',
      version: 2,
      workspace_id: 42,
      prompt_template: expanded,
      metadata: { model: { provider: 'openai', name: 'gpt-4o' }, team: 'cx' },
      commit_message: 'Improve support tone',
      tags: ['support'],
      created_at: '2025-03-15T10:31:00.000Z',
      snippets,
    });
    expect(view).not.toHaveProperty('llm_kwargs');
    expect(toRawTemplateView(42, head, version, expanded, [], { model: 'gpt-4o' }).llm_kwargs).toEqual({
      model: 'gpt-4o',
    });
  });

  it('answers a publish with the version ids and the stored blueprint', () => {
    expect(toPublishView(head, version, ['prod'], [{ source: 'crm', external_id: '1' }])).toEqual({
      id: 17,
      prompt_name: 'support-response',
      prompt_version_id: 102,
      version_number: 2,
      tags: ['support'],
      release_labels: ['prod'],
      prompt_template: version.prompt_template,
      metadata: version.metadata,
      commit_message: 'Improve support tone',
      external_ids: [{ source: 'crm', external_id: '1' }],
    });
  });

  it('answers a label with every field, times in ISO 8601', () => {
    expect(toLabelView(17, 'prod', head.labels.prod!)).toEqual({
      id: 4,
      name: 'prod',
      prompt_id: 17,
      prompt_version_id: 101,
      prompt_version_number: 1,
      created_at: '2025-03-15T10:30:00.000Z',
      updated_at: '2025-03-15T10:30:01.000Z',
    });
  });

  it('lists labels by name in the reference shape', () => {
    expect(toLabelsView(head)).toEqual({
      release_labels: [
        { release_label: 'prod', release_label_id: 4, prompt_version_id: 101, prompt_version_number: 1 },
        { release_label: 'staging', release_label_id: 5, prompt_version_id: 102, prompt_version_number: 2 },
      ],
    });
  });

  it('lists a template with its latest version', () => {
    expect(toListItem(head, version, [])).toMatchObject({
      id: 17,
      prompt_name: 'support-response',
      version: 2,
      prompt_template: version.prompt_template,
      external_ids: [],
      is_snippet: true,
      release_labels: ['prod', 'staging'],
      created_at: '2025-03-15T10:30:00.000Z',
      updated_at: '2025-03-15T10:31:00.000Z',
    });
  });
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import * as labels from '#shared/prompts/labels.ts';
import { listTemplates } from '#shared/prompts/list.ts';
import * as read from '#shared/prompts/lookup.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publishDirect, uniqueName } from '#test/support/prompts.ts';

/**
 * Prompt templates written before the versions module was shared: their items, attribute for attribute
 * as the registry stored them, still read, list, take new versions and move labels.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
});
afterAll(() => service?.stop());

const TEMPLATE_ID = 88_000_001;
const VERSION_ID = 88_000_002;
const LABEL_ID = 88_000_003;

async function writeLegacyTemplate(name: string) {
  const at = Date.UTC(2025, 0, 2);
  const pk = `W#${ws}#P#${name}`;
  const version = {
    id: VERSION_ID,
    prompt_name: name,
    prompt_template: completion('legacy'),
    metadata: null,
    commit_message: 'old',
    created_at: at,
    prompt_id: TEMPLATE_ID,
    number: 1,
  };
  const entry = {
    id: LABEL_ID,
    prompt_version_id: VERSION_ID,
    version_number: 1,
    created_at: at,
    updated_at: at,
  };
  await batchWriteItems(
    [
      { PK: pk, SK: 'V#0000000001', doc: JSON.stringify(version) },
      {
        PK: pk,
        SK: 'L#prod',
        prompt_version_id: VERSION_ID,
        version_number: 1,
        doc: JSON.stringify(version),
      },
      { PK: `W#${ws}#PID#${TEMPLATE_ID}`, SK: 'PID', name },
      { PK: `W#${ws}#PL#${LABEL_ID}`, SK: 'PL', id: LABEL_ID, prompt_name: name, label: 'prod' },
    ].map((Item) => ({ PutRequest: { Item } })),
  );
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        PK: pk,
        SK: '~HEAD',
        GSI1PK: `W#${ws}#PROMPTS`,
        GSI1SK: `${String(at).padStart(15, '0')}#${String(TEMPLATE_ID).padStart(16, '0')}`,
        id: TEMPLATE_ID,
        name,
        tags: ['old'],
        folder_id: null,
        created_at: at,
        updated_at: at,
        labels: { prod: entry },
        has_external_ids: false,
      },
    }),
  );
}

describe('a prompt template stored before the shared versions module', () => {
  it('reads, lists, takes a new version and moves and deletes its label', async () => {
    const name = uniqueName('legacy');
    await writeLegacyTemplate(name);
    for (const identifier of [name, String(TEMPLATE_ID)]) {
      const found = await read.readTemplate(ws, identifier, { label: 'prod' });
      expect(found.head).toMatchObject({ id: TEMPLATE_ID, tags: ['old'] });
      expect(found.version).toMatchObject({ id: VERSION_ID, number: 1, commit_message: 'old' });
    }
    const listed = await listTemplates(ws, { page: 1, per_page: 100, status: 'active', name });
    expect(listed.items).toEqual([expect.objectContaining({ id: TEMPLATE_ID, release_labels: ['prod'] })]);

    const next = await publishDirect(ws, name, completion('new'), { release_labels: ['prod'] });
    expect(next).toMatchObject({ id: TEMPLATE_ID, version_number: 2, release_labels: ['prod'] });
    expect((await read.readTemplate(ws, name, { label: 'prod' })).version.number).toBe(2);
    expect((await labels.listLabels(ws, name)).release_labels).toEqual([
      expect.objectContaining({
        release_label: 'prod',
        release_label_id: LABEL_ID,
        prompt_version_number: 2,
      }),
    ]);

    expect(await labels.moveLabel(ws, LABEL_ID, 1)).toMatchObject({ id: LABEL_ID, prompt_version_number: 1 });
    expect((await read.readTemplate(ws, name, { label: 'prod' })).version.id).toBe(VERSION_ID);
    await labels.deleteLabel(ws, LABEL_ID);
    await expect(read.readTemplate(ws, name, { label: 'prod' })).rejects.toMatchObject({ status: 404 });
  });
});

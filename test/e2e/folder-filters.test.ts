import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publishBody, uniqueName } from '#test/support/prompts.ts';
import { createReport, publishedDataset } from '#test/support/reports.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * `folder_id` on every list whose items carry a folder, through the local gateway: a folder id keeps the
 * entities directly in it, `null` those at the workspace root, absent keeps all; a malformed value is a
 * 422. Each test works in a workspace of its own, so a list holds only what the test made.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

interface ListCase {
  path: string;
  /** Creates one entity in `folderId` (null: the root) with the key: its id. */
  create(key: string, folderId: number | null): Promise<number>;
  /** The ids of a list answer. */
  ids(body: any): number[];
}

async function created(answer: { status: number; body: any }, id: (body: any) => number, status = 201) {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
  return id(answer.body);
}

const CASES: Record<string, ListCase> = {
  'GET /prompt-templates': {
    path: '/prompt-templates',
    create: async (key, folderId) =>
      created(
        await service.call('POST', '/rest/prompt-templates', {
          body: {
            ...publishBody(uniqueName('in-folder')),
            prompt_template: { prompt_name: uniqueName('in-folder'), folder_id: folderId },
          },
          key,
        }),
        (body) => body.id,
        200, // a publish answers 200, as PromptLayer documents
      ),
    ids: (body) => body.items.map((item: { id: number }) => item.id),
  },
  'GET /workflows': {
    path: '/workflows',
    create: async (key, folderId) =>
      created(
        await service.call('POST', '/rest/workflows', {
          body: workflowBody(uniqueName('in-folder'), { folder_id: folderId }),
          key,
        }),
        (body) => body.workflow_id,
      ),
    ids: (body) => body.items.map((item: { id: number }) => item.id),
  },
  'GET /api/public/v2/tool-registry': {
    path: '/api/public/v2/tool-registry',
    create: async (key, folderId) =>
      created(
        await service.call('POST', '/api/public/v2/tool-registry', {
          body: {
            name: uniqueName('in-folder'),
            folder_id: folderId,
            tool_definition: { name: 'f', parameters: { type: 'object' } },
          },
          key,
        }),
        (body) => body.tool_registry.id,
      ),
    ids: (body) => body.tool_registries.map((item: { id: number }) => item.id),
  },
  'GET /api/public/v2/evaluations': {
    path: '/api/public/v2/evaluations',
    create: async (key, folderId) => {
      const { groupId } = await publishedDataset(service, 'question,expected\na,a\n', { key });
      const report = await createReport(
        service,
        { dataset_group_id: groupId, name: uniqueName('in-folder'), folder_id: folderId },
        key,
      );
      return report.report_id;
    },
    ids: (body) => body.evaluations.map((item: { id: number }) => item.id),
  },
};

describe.each(Object.entries(CASES))('%s', (_route, list) => {
  it('filters by folder_id: a folder, null for the root, absent for all', async () => {
    const key = await service.otherWorkspaceKey(uniqueName('folders'));
    const folder = await createFolder(service, { key });
    const otherFolder = await createFolder(service, { key });
    const inFolder = await list.create(key, folder);
    const inOther = await list.create(key, otherFolder);
    const atRoot = await list.create(key, null);
    const listed = async (query: Record<string, string | number> = {}) => {
      const answer = await service.call('GET', list.path, { query, key });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
      return list.ids(answer.body).sort((a, b) => a - b);
    };
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

    expect(await listed({ folder_id: folder })).toEqual([inFolder]);
    expect(await listed({ folder_id: otherFolder })).toEqual([inOther]);
    expect(await listed({ folder_id: 'null' })).toEqual([atRoot]);
    expect(await listed({ folder_id: 999_999 })).toEqual([]);
    expect(await listed()).toEqual(sorted([inFolder, inOther, atRoot]));
  });

  it('answers 422 to a folder_id that is neither a folder id nor null', async () => {
    for (const bad of ['0', '-3', 'abc', '1.5', '']) {
      const answer = await service.call('GET', list.path, { query: { folder_id: bad } });
      expect(answer.status, bad).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['query', 'folder_id']);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publishBody, uniqueName } from '#test/support/prompts.ts';
import { publishedDataset } from '#test/support/reports.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * The `folder_id` a create files an entity under, through the local gateway, for every kind that can
 * live in a folder: a folder of the workspace is taken and shown; an unknown folder, or another
 * workspace's, is a 404 "Folder <id> not found" with nothing stored (the name stays free).
 */
let service: TestService;
let otherKey: string;
let otherFolder: number;
beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey(uniqueName('folder-refs-other'));
  otherFolder = await createFolder(service, { key: otherKey });
});
afterAll(() => service?.stop());

type Answer = { status: number; body: any };

interface KindCase {
  /** The create route, as `[method, path]`. */
  route: [string, string];
  /** The status of a create: 201, except a prompt publish (200, as PromptLayer documents). */
  createdStatus?: number;
  /** What a test makes before its creates (a published dataset for a report). */
  prepare?(): Promise<Record<string, unknown>>;
  /** A create body of the entity named `name` filed under `folderId`. */
  body(name: string, folderId: number, prepared: Record<string, unknown>): Record<string, unknown>;
  /** The folder the entity shows, read as a client reads it after a create. */
  shownFolder(created: Answer, name: string): Promise<number | null>;
}

const CASES: Record<string, KindCase> = {
  'prompt templates (POST /rest/prompt-templates)': {
    route: ['POST', '/rest/prompt-templates'],
    createdStatus: 200,
    body: (name, folderId) => ({
      ...publishBody(name),
      prompt_template: { prompt_name: name, folder_id: folderId },
    }),
    async shownFolder(created) {
      const listed = await service.call('GET', '/prompt-templates', { query: { per_page: 100 } });
      return listed.body.items.find((item: { id: number }) => item.id === created.body.id).folder_id;
    },
  },
  'workflows (POST /rest/workflows)': {
    route: ['POST', '/rest/workflows'],
    body: (name, folderId) => workflowBody(name, { folder_id: folderId }),
    async shownFolder(_created, name) {
      const read = await service.call('GET', `/workflows/${encodeURIComponent(name)}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      return read.body.workflow.folder_id;
    },
  },
  'registry tools (POST /api/public/v2/tool-registry)': {
    route: ['POST', '/api/public/v2/tool-registry'],
    body: (name, folderId) => ({
      name,
      folder_id: folderId,
      tool_definition: { name: 'lookup', parameters: { type: 'object' } },
    }),
    shownFolder: async (created) => created.body.tool_registry.folder_id,
  },
  'dataset groups (POST /api/public/v2/dataset-groups)': {
    route: ['POST', '/api/public/v2/dataset-groups'],
    body: (name, folderId) => ({ name, folder_id: folderId }),
    shownFolder: async (created) => created.body.dataset_group.folder_id,
  },
  'reports (POST /reports)': {
    route: ['POST', '/reports'],
    prepare: async () => ({
      dataset_group_id: (await publishedDataset(service, 'question,expected\na,a\n')).groupId,
    }),
    body: (name, folderId, prepared) => ({ ...prepared, name, folder_id: folderId }),
    async shownFolder(created) {
      const read = await service.call('GET', `/reports/${created.body.report_id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      return read.body.report.folder_id;
    },
  },
  'skill collections (POST /api/public/v2/skill-collections)': {
    route: ['POST', '/api/public/v2/skill-collections'],
    body: (name, folderId) => ({
      name,
      folder_id: folderId,
      files: [{ path: 'README.md', content: 'A collection.\n' }],
    }),
    shownFolder: async (created) => created.body.skill_collection.folder_id,
  },
};

describe.each(Object.entries(CASES))('folder_id on create: %s', (_kind, kind) => {
  const [method, path] = kind.route;
  const create = (body: Record<string, unknown>) => service.call(method, path, { body });

  it('files the entity under a folder of the workspace (201) and shows it there', async () => {
    const prepared = (await kind.prepare?.()) ?? {};
    const folderId = await createFolder(service);
    const name = uniqueName('filed');
    const created = await create(kind.body(name, folderId, prepared));
    expect(created.status, JSON.stringify(created.body)).toBe(kind.createdStatus ?? 201);
    expect(await kind.shownFolder(created, name)).toBe(folderId);
  });

  it('answers 404 for a folder that does not exist, stores nothing, and leaves the name free', async () => {
    const prepared = (await kind.prepare?.()) ?? {};
    const name = uniqueName('unfiled');
    const unknown = 987_654_321;
    const refused = await service.rejected(method, path, { body: kind.body(name, unknown, prepared) });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({
      success: false,
      message: `Folder ${unknown} not found`,
      error: 'not_found',
    });
    const folderId = await createFolder(service);
    const created = await create(kind.body(name, folderId, prepared));
    expect(created.status, JSON.stringify(created.body)).toBe(kind.createdStatus ?? 201);
    expect(await kind.shownFolder(created, name)).toBe(folderId);
  });

  it("answers 404 for another workspace's folder, and stores nothing", async () => {
    const prepared = (await kind.prepare?.()) ?? {};
    const refused = await service.rejected(method, path, {
      body: kind.body(uniqueName('theirs'), otherFolder, prepared),
    });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe(`Folder ${otherFolder} not found`);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityId, PlacedKind } from '#shared/folder-contents/placement.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publishDirect, uniqueName } from '#test/support/prompts.ts';
import { createDatasetGroup, reportOver } from '#test/support/reports.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * Finding entities as a folder move finds them (KIND_PLACEMENT), against the local runtime: an entity
 * made through its feature exists in its workspace only; an unknown id, another workspace's or a deleted
 * report's does not.
 */
let service: TestService;
let ws: number;
let entityExists: (kind: PlacedKind, workspaceId: number, id: EntityId) => Promise<boolean>;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
  const { findHeads } = await import('#shared/folder-contents/move.ts');
  entityExists = async (kind, workspaceId, id) =>
    (await findHeads(workspaceId, [{ kind, id, ref: 'entity' }], async () => undefined)).heads.has('entity');
});
afterAll(() => service?.stop());

const OTHER_WORKSPACE = () => ws + 1_000_000;
const UNKNOWN_ID = 987_654_321;

describe('finding an entity by kind and id', () => {
  it('finds prompts (and snippets, which are prompts), dataset groups, workflows, reports and tools by id', async () => {
    const prompt = await publishDirect(ws, uniqueName('exists'), { type: 'completion', content: [] });
    const groupId = await createDatasetGroup(service);
    const workflow = await service.call('POST', '/rest/workflows', {
      body: workflowBody(uniqueName('exists')),
    });
    expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
    const report = await reportOver(service, 'question,expected\nq,a\n');
    const tool = await service.call('POST', '/api/public/v2/tool-registry', {
      body: {
        name: uniqueName('exists'),
        tool_definition: {
          name: 'lookup',
          description: 'Looks up',
          parameters: { type: 'object', properties: {} },
        },
      },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);

    const made = [
      ['prompt', prompt.id],
      ['snippet', prompt.id],
      ['dataset', groupId],
      ['workflow', workflow.body.workflow_id],
      ['report', report.report_id],
      ['tool', tool.body.tool_registry.id],
    ] as const;
    for (const [kind, id] of made) {
      expect(await entityExists(kind, ws, id), `${kind} ${id}`).toBe(true);
      expect(await entityExists(kind, OTHER_WORKSPACE(), id), `${kind} ${id} elsewhere`).toBe(false);
      expect(await entityExists(kind, ws, UNKNOWN_ID), `${kind} unknown`).toBe(false);
    }

    expect((await service.call('DELETE', `/reports/${report.report_id}`)).status).toBe(200);
    expect(await entityExists('report', ws, report.report_id)).toBe(false);
  });
});

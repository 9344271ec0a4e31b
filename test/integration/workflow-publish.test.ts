import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchWorkflow } from '#shared/workflows/patch.ts';
import { createWorkflow } from '#shared/workflows/publish.ts';
import { workflowStore } from '#shared/workflows/registry.ts';
import {
  type CreateWorkflowBody,
  createWorkflowBodySchema,
  patchWorkflowBodySchema,
} from '#shared/workflows/schemas.ts';
import { findWorkflowVersion } from '#shared/workflows/store.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { variableNode, workflowBody } from '#test/support/workflows.ts';

/** Workflow versions against dynalite, through the domain functions: numbering under races, reads. */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = service.workspaceId;
});
afterAll(() => service?.stop());

const body = (name: string, extra: Record<string, unknown> = {}): CreateWorkflowBody =>
  createWorkflowBodySchema.parse(workflowBody(name, extra));

describe('publishing workflow versions', () => {
  it('gives 20 concurrent first publishes of one name versions 1..20 of one workflow, each once', async () => {
    const name = uniqueName('wf-race');
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createWorkflow(ws, 1, body(name, { nodes: [variableNode('greeting', `v${i}`)] })),
      ),
    );
    expect(new Set(created.map((c) => c.workflow_id)).size).toBe(1);
    expect(created.map((c) => c.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const stored = await Promise.all(
      Array.from({ length: 21 }, (_, i) => workflowStore.getVersion(ws, name, i + 1)),
    );
    expect(stored.filter(Boolean)).toHaveLength(20);
    // Every publish's graph is the one version it was answered with.
    for (const c of created) {
      const found = await findWorkflowVersion(ws, name, { version: c.version_number });
      expect(found.version_id).toBe(c.workflow_version_id);
    }
  });

  it('finds a version by id or name, by number, label or the latest; 404 for what is not there', async () => {
    const name = uniqueName('wf-find');
    const one = await createWorkflow(ws, 1, body(name, { release_labels: ['prod'] }));
    const two = await createWorkflow(ws, 1, body(name, { nodes: [variableNode('greeting', 'Bye')] }));
    const latest = await findWorkflowVersion(ws, String(one.workflow_id), {});
    expect(latest).toMatchObject({ workflow_id: one.workflow_id, workflow_name: name, version_number: 2 });
    expect(latest.graph.nodes[0]).toMatchObject({
      name: 'greeting',
      configuration: { value: { value: 'Bye' } },
    });
    expect((await findWorkflowVersion(ws, name, { label: 'prod' })).version_id).toBe(one.workflow_version_id);
    expect((await findWorkflowVersion(ws, name, { version: 2 })).version_id).toBe(two.workflow_version_id);
    await expect(findWorkflowVersion(ws, name, { version: 3 })).rejects.toMatchObject({ status: 404 });
    await expect(findWorkflowVersion(ws, name, { label: 'nope' })).rejects.toMatchObject({ status: 404 });
    await expect(findWorkflowVersion(ws, uniqueName('none'), {})).rejects.toMatchObject({ status: 404 });
    await expect(findWorkflowVersion(ws + 1_000_000, name, {})).rejects.toMatchObject({ status: 404 });
  });

  it('lands all of 10 racing patches on the same base version, as versions 2..11 each built on version 1', async () => {
    const name = uniqueName('wf-patch-race');
    await createWorkflow(ws, 1, body(name));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        patchWorkflow(
          ws,
          1,
          name,
          patchWorkflowBodySchema.parse({
            base_version: 1,
            nodes: { greeting: { configuration: { value: { type: 'string', value: `p${i}` } } } },
          }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.version_number).sort((a, b) => a - b)).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    expect(answers.every((answer) => answer.base_version === 1)).toBe(true);
    // Each version holds its own patch on top of version 1, never another patch's value.
    for (const [i, answer] of answers.entries()) {
      const version = await findWorkflowVersion(ws, name, { version: answer.version_number });
      expect(version.graph.nodes[0]?.configuration).toEqual({ value: { type: 'string', value: `p${i}` } });
    }
  });
});

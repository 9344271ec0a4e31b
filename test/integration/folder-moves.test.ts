import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDynamoCommands, type SentCommand } from '#test/support/dynamo-commands.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publishDirect, uniqueName } from '#test/support/prompts.ts';
import { createDatasetGroup, reportOver } from '#test/support/reports.ts';
import { workflowBody } from '#test/support/workflows.ts';

/**
 * The reads of a folder move: whatever the mix of kinds, the checks before the first write are the
 * folder tree's Query and two BatchGetItems; then one conditional UpdateItem per entity. (The bench
 * prints the same for 100 entities; here the commands themselves are checked.)
 */
let service: TestService;
let sent: SentCommand[];
beforeAll(async () => {
  service = await startTestService();
  sent = await recordDynamoCommands();
});
afterAll(() => service?.stop());

async function created(method: string, path: string, body: Record<string, unknown>) {
  const answer = await service.call(method, path, { body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

describe('planMove and applyMove', () => {
  it('check 100 entities of every kind in 3 round trips, then write one UpdateItem each', async () => {
    const ws = service.workspaceId;
    const entities: { id: number; type: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const prompt = await publishDirect(ws, uniqueName('move'), { type: 'completion', content: [] });
      entities.push({ id: prompt.id, type: i < 25 ? 'PROMPT' : 'SNIPPET' });
    }
    for (let i = 0; i < 20; i++) entities.push({ id: await createDatasetGroup(service), type: 'DATASET' });
    for (let i = 0; i < 20; i++) {
      const tool = await created('POST', '/api/public/v2/tool-registry', {
        name: uniqueName('move'),
        tool_definition: {
          name: 'lookup',
          description: 'Looks up',
          parameters: { type: 'object', properties: {} },
        },
      });
      entities.push({ id: tool.tool_registry.id, type: 'TOOL' });
    }
    for (let i = 0; i < 18; i++)
      entities.push({
        id: (await created('POST', '/rest/workflows', workflowBody(uniqueName('move')))).workflow_id,
        type: 'WORKFLOW',
      });
    for (let i = 0; i < 2; i++)
      entities.push({
        id: (await reportOver(service, 'question,expected\nq,a\n')).report_id,
        type: 'REPORT',
      });
    for (let i = 0; i < 10; i++)
      entities.push({
        id: (await created('POST', '/api/public/v2/folders', { name: uniqueName('move') })).folder.id,
        type: 'FOLDER',
      });
    const target = (await created('POST', '/api/public/v2/folders', { name: uniqueName('target') })).folder
      .id;
    expect(entities).toHaveLength(100);

    const { planMove, applyMove } = await import('#shared/folder-contents/move.ts');
    sent.length = 0;
    const plan = await planMove(ws, { entities: entities as never, folder_id: target });
    expect(sent.map((command) => command.name).sort()).toEqual([
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'QueryCommand',
    ]);
    sent.length = 0;
    expect(await applyMove(ws, plan)).toBe(100);
    const writes = sent.map((command) => command.name);
    expect(writes.filter((name) => name === 'UpdateItemCommand')).toHaveLength(100);
    expect(writes.filter((name) => name === 'BatchWriteItemCommand')).toHaveLength(0);

    // Every type named: tools and skill collections are listed only when asked for.
    const types = [
      'PROMPT',
      'SNIPPET',
      'WORKFLOW',
      'DATASET',
      'REPORT',
      'TOOL',
      'SKILL_COLLECTION',
      'FOLDER',
    ];
    const listed = await service.call(
      'GET',
      `/api/public/v2/folders/entities?folder_id=${target}&${types.map((type) => `filter_type=${type}`).join('&')}`,
    );
    // Snippets are their prompt templates, listed as PROMPT.
    expect(listed.body.entities).toHaveLength(100);
  });
});

import { documentClient } from '#shared/platform/dynamo.ts';
import { apiClient, type BenchRow, type Call, countDynamoCalls, countDynamoWaves, fmt } from './support.ts';

/**
 * Moving 100 entities of mixed kinds (prompts, tools, dataset groups, workflows and folders) into a
 * folder. (a) The domain move in this process, its DynamoDB commands counted on the document client:
 * the round trips of the checks before the first write (budget: 3, whatever the mix; the tree Query
 * runs beside the first BatchGetItem, so they are 2 sequential waves) and the writes.
 * (b) The same move back through the local gateway: wall time of the route.
 */
const TARGET_READS = 3;
const MIX = { PROMPT: 30, TOOL: 20, DATASET: 20, WORKFLOW: 20, FOLDER: 10 } as const;

async function createEntities(call: Call, stamp: string) {
  const entities: { id: number; type: string }[] = [];
  const add = (type: string, id: number) => entities.push({ id, type });
  for (let i = 0; i < MIX.PROMPT; i++) {
    const answer = await call('POST', '/rest/prompt-templates', {
      prompt_template: { prompt_name: `bench-${stamp}-prompt-${i}` },
      prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'hi' }] } },
    });
    add('PROMPT', answer.id);
  }
  for (let i = 0; i < MIX.TOOL; i++) {
    const answer = await call('POST', '/api/public/v2/tool-registry', {
      name: `bench-${stamp}-tool-${i}`,
      tool_definition: {
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: {} },
      },
    });
    add('TOOL', answer.tool_registry.id);
  }
  for (let i = 0; i < MIX.DATASET; i++) {
    const answer = await call('POST', '/api/public/v2/dataset-groups', { name: `bench-${stamp}-group-${i}` });
    add('DATASET', answer.dataset_group.id);
  }
  for (let i = 0; i < MIX.WORKFLOW; i++) {
    const answer = await call('POST', '/rest/workflows', {
      name: `bench-${stamp}-workflow-${i}`,
      nodes: [
        {
          name: 'answer',
          node_type: 'VARIABLE',
          configuration: { value: { type: 'string', value: 'hi' } },
          is_output_node: true,
          dependencies: [],
        },
      ],
    });
    add('WORKFLOW', answer.workflow_id);
  }
  for (let i = 0; i < MIX.FOLDER; i++) {
    const answer = await call('POST', '/api/public/v2/folders', { name: `bench-${stamp}-folder-${i}` });
    add('FOLDER', answer.folder.id);
  }
  return entities;
}

export async function benchFolders(service: {
  apiKey: string;
  workspaceId: number;
  baseUrl: string;
}): Promise<BenchRow[]> {
  const call = apiClient(service.baseUrl, service.apiKey);
  const stamp = Date.now().toString(36);
  const entities = await createEntities(call, stamp);
  const target = (await call('POST', '/api/public/v2/folders', { name: `bench-${stamp}-target` })).folder.id;
  const { planMove, applyMove } = await import('#shared/folder-contents/move.ts');
  const { withTreeLease } = await import('#shared/folders/store.ts');
  const counter = countDynamoCalls(documentClient());
  const waves = countDynamoWaves(documentClient());

  // As the route runs it: a move that names a folder holds the workspace's tree lease around its checks
  // and writes (one conditional write to take it, one delete to give it up).
  counter.reset();
  const started = performance.now();
  const measured = await withTreeLease(service.workspaceId, async () => {
    const lease = counter.total();
    counter.reset();
    waves.reset();
    const plan = await planMove(service.workspaceId, { entities: entities as never, folder_id: target });
    const reads = counter.snapshot();
    const readCount = counter.total();
    const readWaves = waves.waves;
    counter.reset();
    const moved = await applyMove(service.workspaceId, plan);
    return { lease, reads, readCount, readWaves, moved, writes: counter.snapshot() };
  });
  const domainMs = performance.now() - started;
  const { lease, reads, readCount, readWaves, moved, writes } = measured;
  if (moved !== entities.length) throw new Error(`moved ${moved} of ${entities.length}`);

  const routeStarted = performance.now();
  const back = await call('POST', '/api/public/v2/folders/entities', { entities, folder_id: null });
  const routeMs = performance.now() - routeStarted;
  if (back.moved_count !== entities.length) throw new Error(`moved back ${back.moved_count}`);

  const mix = Object.entries(MIX)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([name, n]) => `${name.replace('Command', '')} ${n}`)
      .join(', ');
  return [
    {
      name: `folder move of ${entities.length} entities (${mix}): DynamoDB round trips before the writes`,
      value: `${readCount} (${list(reads)}) in ${readWaves} sequential waves, after ${lease} conditional write taking the tree lease (moves that name a folder)`,
      target: `<= ${TARGET_READS}`,
    },
    {
      name: 'folder move of 100 entities: DynamoDB writes',
      value: `${fmt(
        Object.values(writes).reduce((a, b) => a + b, 0),
        0,
      )} (${list(writes)})`,
      target: 'one conditional UpdateItem per entity (+ a name claim and release per folder)',
    },
    { name: 'folder move of 100 entities: domain time', value: `${fmt(domainMs, 0)} ms`, target: '-' },
    {
      name: 'folder move of 100 entities: route time through the gateway',
      value: `${fmt(routeMs, 0)} ms`,
      target: '-',
    },
  ];
}

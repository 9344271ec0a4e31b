import { type BenchRow, countDynamoCalls, cpuMs, fmt, percentile } from './support.ts';

/**
 * The workflow engine on the local runtime (dynalite, the in-process node queue with its concurrency):
 * DynamoDB calls per executed node of a 50-node chain, the per-hop overhead of that chain, a 50-wide
 * fan-out against a 5-wide one (with the CPU each executed node cost: locally every node shares this
 * process, so the fan-out's time follows it), and 100 concurrent runs of a 10-node diamond.
 */
type Node = Record<string, unknown>;
const variable = (name: string, dependencies: string[] = [], output = false): Node => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'string', value: name } },
  dependencies,
  is_output_node: output,
});

const chain = (length: number) =>
  Array.from({ length }, (_, i) => variable(`n${i}`, i ? [`n${i - 1}`] : [], i === length - 1));
const fanOut = (width: number) => [
  variable('root'),
  ...Array.from({ length: width }, (_, i) => variable(`b${i}`, ['root'])),
  variable(
    'join',
    Array.from({ length: width }, (_, i) => `b${i}`),
    true,
  ),
];
/** Timed runs of each width: the 5-wide run's few milliseconds vary from run to run. */
const FAN_OUT_RUNS = 7;
/** 10 nodes: a root, 8 branches, a join. */
const diamond = () => fanOut(8);

export async function benchWorkflows(
  workspaceId: number,
  service: { messaging: { idle(): Promise<void> } },
): Promise<BenchRow[]> {
  const { createWorkflow } = await import('#shared/workflows/publish.ts');
  const { findWorkflowVersion } = await import('#shared/workflows/store.ts');
  const { startExecution } = await import('#shared/workflows/engine/start.ts');
  const { readExecution } = await import('#shared/workflows/engine/store.ts');
  const { documentClient } = await import('#shared/platform/dynamo.ts');

  const define = async (name: string, nodes: Node[]) => {
    await createWorkflow(workspaceId, 1, { name, nodes } as never);
    return findWorkflowVersion(workspaceId, name, {});
  };
  /** CPU of the runs measured so far, by graph: this process's and the embedded DynamoDB's, and nodes run. */
  const cpu = new Map<string, { own: number; dynamo: number; nodes: number }>();
  const runOnce = async (version: Awaited<ReturnType<typeof define>>, cpuOf?: string) => {
    const started = Date.now();
    const cpuBefore = cpuMs();
    const { executionId } = await startExecution(workspaceId, version, {});
    await service.messaging.idle();
    const execution = await readExecution(workspaceId, executionId);
    if (execution?.meta.status !== 'COMPLETE') throw new Error(`run ${executionId} did not complete`);
    const ms = Date.now() - started;
    if (cpuOf) {
      const cpuAfter = cpuMs();
      const sum = cpu.get(cpuOf) ?? { own: 0, dynamo: 0, nodes: 0 };
      sum.own += cpuAfter.own - cpuBefore.own;
      sum.dynamo += cpuAfter.children - cpuBefore.children;
      sum.nodes += execution.nodes.length;
      cpu.set(cpuOf, sum);
    }
    return { ms, execution };
  };
  const cpuPerNode = (graph: string) => {
    const sum = cpu.get(graph) ?? { own: 0, dynamo: 0, nodes: 1 };
    return `${fmt(sum.own / sum.nodes, 1)} + ${fmt(sum.dynamo / sum.nodes, 1)}`;
  };

  // A first run warms the node worker (module loading, the version cache) out of the numbers.
  const chain50 = await define('bench-chain', chain(50));
  await runOnce(chain50);

  const counter = countDynamoCalls(documentClient());
  counter.reset();
  const counted = await runOnce(chain50);
  const callsPerNode = counter.total() / 50;
  const breakdown = counter.snapshot();

  const hops: number[] = [];
  const chainTimes: number[] = [counted.ms];
  for (let i = 0; i < 5; i++) {
    const { ms, execution } = await runOnce(chain50, 'chain');
    chainTimes.push(ms);
    const nodes = execution.nodes;
    for (let n = 1; n < nodes.length; n++) {
      hops.push(Number(nodes[n]!.startedAt) - Number(nodes[n - 1]!.finishedAt));
    }
  }

  const wide5 = await define('bench-fan-5', fanOut(5));
  const wide50 = await define('bench-fan-50', fanOut(50));
  await runOnce(wide5);
  await runOnce(wide50);
  const times5: number[] = [];
  const times50: number[] = [];
  for (let i = 0; i < FAN_OUT_RUNS; i++) {
    times5.push((await runOnce(wide5, '5-wide')).ms);
    times50.push((await runOnce(wide50, '50-wide')).ms);
  }
  const ratio = percentile(times50, 50) / percentile(times5, 50);

  const diamond10 = await define('bench-diamond', diamond());
  const started = Date.now();
  const ids = await Promise.all(
    Array.from({ length: 100 }, async () => (await startExecution(workspaceId, diamond10, {})).executionId),
  );
  await service.messaging.idle();
  const seconds = (Date.now() - started) / 1000;
  let complete = 0;
  let twice = 0;
  let lost = 0;
  for (const id of ids) {
    const execution = await readExecution(workspaceId, id);
    if (execution?.meta.status === 'COMPLETE') complete++;
    for (const node of execution?.nodes ?? []) {
      if (node.status !== 'SUCCESS') lost++;
      if (Number(node.attempt) !== 1) twice++;
    }
  }
  if (complete !== 100 || lost || twice) {
    throw new Error(`diamond runs: ${complete} complete, ${lost} nodes not SUCCESS, ${twice} claimed twice`);
  }

  return [
    {
      name: 'workflows: DynamoDB calls per executed node (50-node VARIABLE chain, mean)',
      value: `${fmt(callsPerNode)} (${Object.entries(breakdown)
        .map(([name, n]) => `${name.replace('Command', '')} ${n}`)
        .join(', ')})`,
      target: '<= 6',
    },
    {
      name: 'workflows: per-hop overhead p50 / p99 (ms, chain of 50, local)',
      value: `${fmt(percentile(hops, 50), 1)} / ${fmt(percentile(hops, 99), 1)}`,
      target: 'p50 < 15',
    },
    {
      name: 'workflows: chain of 50 end to end p50 (ms, local)',
      value: fmt(percentile(chainTimes, 50), 0),
      target: 'report',
    },
    {
      name: `workflows: 50-wide / 5-wide fan-out time (ms, p50 of ${FAN_OUT_RUNS}, local)`,
      value: `${fmt(percentile(times50, 50), 0)} / ${fmt(percentile(times5, 50), 0)} = ${fmt(ratio)}x`,
      target: '< 3x',
    },
    {
      name: 'workflows: CPU per executed node, this process + the embedded DynamoDB (ms; 50-wide, 5-wide, chain of 50)',
      value: `${cpuPerNode('50-wide')}, ${cpuPerNode('5-wide')}, ${cpuPerNode('chain')}`,
      target: 'report',
    },
    {
      name: 'workflows: 100 concurrent runs of a 10-node diamond (runs/s, local; all complete, none run twice)',
      value: fmt(100 / seconds, 1),
      target: 'report',
    },
  ];
}

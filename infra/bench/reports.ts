/**
 * Report runs on the local runtime.
 *
 * (a) A 1,000-row report with 3 non-LLM columns (COMPARE, CONTAINS, CODE_EXECUTION in the sandbox) runs
 *     through the gateway and the in-process `report-rows` queue: wall time from the run request to
 *     the queue being idle, rows/s, and DynamoDB calls per cell (every call of the run route and the
 *     workers, counted on the document client).
 * (b) The row worker over a 10,000-row dataset as Lambda runs it: the function bundled exactly as the
 *     stack bundles it (its sandbox files beside it), started with the function's NODE_OPTIONS in a
 *     process of its own (against this process's emulators), its handler invoked with SQS events of
 *     the queue's batch size until every batch of the run is done, as a warm container would: its peak
 *     RSS. Node sizes its V8 heap from the memory of the machine it runs on (the container's, in
 *     Lambda): the figure that counts gives the process the heap Node picks in the function's
 *     container (containerHeapFlags); the one with this machine's sizing is printed for comparison (on a
 *     workstation of many GB, V8 lets its young generation grow to 4x what it does in 1 GB).
 */

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE, esbuildOptions, sandboxAssetCommands } from '../bundling.ts';
import { REPO_ROOT } from '../local/service.ts';
import { REPORT_RUN_JOB_QUEUES } from '../routes/report-runs.ts';
import { apiClient, type BenchRow, type Call, containerHeapFlags, countDynamoCalls, fmt } from './support.ts';

const TARGETS = { seconds: 20, callsPerCell: 2, rssMb: 256 };

const COLUMNS = [
  {
    column_type: 'COMPARE',
    name: 'same',
    configuration: { sources: ['question', 'expected'], comparison_type: { type: 'STRING' } },
    is_part_of_score: true,
  },
  { column_type: 'CONTAINS', name: 'mentions', configuration: { source: 'question', value: 'answer' } },
  {
    column_type: 'CODE_EXECUTION',
    name: 'length',
    configuration: { language: 'JAVASCRIPT', code: 'return String(data.question).length;' },
  },
];

const csv = (rows: number) =>
  `question,expected\n${Array.from({ length: rows }, (_, i) => `what is the answer to ${i},${i % 3 ? 'no' : `what is the answer to ${i}`}`).join('\n')}\n`;

async function reportOver(call: Call, messaging: { idle(): Promise<void> }, rows: number) {
  const group = await call('POST', '/api/public/v2/dataset-groups', { name: `bench ${rows} ${Date.now()}` });
  const groupId = group.dataset_group.id as number;
  await call('POST', '/api/public/v2/dataset-versions/from-file', {
    dataset_group_id: groupId,
    file_name: 'bench.csv',
    file_content_base64: Buffer.from(csv(rows), 'utf8').toString('base64'),
  });
  await messaging.idle();
  const created = await call('POST', '/reports', { dataset_group_id: groupId, columns: COLUMNS });
  return created.report_id as number;
}

export async function benchReports(service: {
  apiKey: string;
  workspaceId: number;
  baseUrl: string;
  messaging: { idle(): Promise<void> };
}): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const call = apiClient(service.baseUrl, service.apiKey);

  // A first small run warms the worker (modules, the sandbox) out of the numbers.
  const warm = await reportOver(call, service.messaging, 20);
  await call('POST', `/reports/${warm}/run`, {});
  await service.messaging.idle();

  const reportId = await reportOver(call, service.messaging, 1000);
  const counter = countDynamoCalls(documentClient());
  counter.reset();
  const started = performance.now();
  await call('POST', `/reports/${reportId}/run`, {});
  await service.messaging.idle();
  const seconds = (performance.now() - started) / 1000;
  const calls = counter.total();
  const breakdown = counter.snapshot();
  const got = await call('GET', `/reports/${reportId}`);
  const counts = got.stats.status_counts;
  if (got.status !== 'COMPLETED' || counts.COMPLETED !== 3000)
    throw new Error(`1,000-row run: ${got.status}, ${JSON.stringify(counts)}`);

  const worker = REPORT_RUN_JOB_QUEUES['report-rows']!;
  const memoryMb = worker.memoryMb ?? 0;
  const containerHeap = containerHeapFlags(memoryMb);
  const bundle = await bundleRowWorker();
  const inContainer = await benchWorkerRss(call, service, bundle, memoryMb, containerHeap);
  const onThisMachine = await benchWorkerRss(call, service, bundle, memoryMb, []);
  const rssValue = (r: ChildResult) =>
    `${fmt(r.peakRssMb, 0)} MB (after loading ${fmt(r.baselineRssMb, 0)} MB; V8 heap at most ${fmt(r.peakHeapTotalMb, 0)} MB, ${fmt(r.peakHeapUsedMb, 0)} MB used, its limit ${fmt(r.heapLimitMb, 0)} MB; ${r.batches} batches in ${fmt(r.seconds, 1)} s)`;

  return [
    {
      name: 'reports: 1,000 rows x 3 non-LLM columns, run to completion (s, local)',
      value: `${fmt(seconds, 1)} (${fmt(1000 / seconds, 0)} rows/s)`,
      target: `< ${TARGETS.seconds}`,
    },
    {
      name: 'reports: DynamoDB calls per cell (1,000 x 3, route and workers)',
      value: `${fmt(calls / 3000, 3)} (${Object.entries(breakdown)
        .map(([name, n]) => `${name.replace('Command', '')} ${n}`)
        .join(', ')})`,
      target: `<= ${TARGETS.callsPerCell}`,
    },
    {
      name: `reports: row worker (its bundle) peak RSS, 10,000 rows x 3 columns, the heap Node picks in its ${fmt(memoryMb, 0)} MB container`,
      value: rssValue(inContainer),
      target: `< ${TARGETS.rssMb} MB`,
    },
    {
      name: 'reports: row worker (its bundle) peak RSS, 10,000 rows x 3 columns, the heap Node picks on this machine',
      value: rssValue(onThisMachine),
      target: 'report',
    },
  ];
}

interface ChildTask {
  workspaceId: number;
  reportId: number;
  run: number;
  batchCount: number;
  recordsPerEvent: number;
}
interface ChildResult {
  /** V8's heap limit in the child: 560 MB as Node sizes it in a 1,024 MB container. */
  heapLimitMb: number;
  peakRssMb: number;
  peakHeapTotalMb: number;
  peakHeapUsedMb: number;
  baselineRssMb: number;
  batches: number;
  seconds: number;
}

/** The row worker bundled as the stack bundles it, its sandbox files beside it: its `index.mjs`. */
async function bundleRowWorker(): Promise<string> {
  const dir = join(REPO_ROOT, '.bench', 'report-rows');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'index.mjs');
  await build(esbuildOptions(join(REPO_ROOT, REPORT_RUN_JOB_QUEUES['report-rows']!.worker), outfile));
  for (const command of sandboxAssetCommands(REPO_ROOT, dir))
    execFileSync('bash', ['-c', command], { cwd: REPO_ROOT });
  return outfile;
}

/** Starts a 10,000-row run without queueing it, and lets the bundled worker run its batches. */
async function benchWorkerRss(
  call: Call,
  service: { workspaceId: number; messaging: { idle(): Promise<void> } },
  bundle: string,
  memoryMb: number,
  heapFlags: string[],
): Promise<ChildResult> {
  const { startReportRun } = await import('#shared/reports/run/start.ts');
  const { defaultCompletionDeps } = await import('#shared/reports/run/complete.ts');
  const { getReport } = await import('#shared/reports/head.ts');
  const reportId = await reportOver(call, service.messaging, 10_000);
  const { runNumber } = await startReportRun(
    service.workspaceId,
    reportId,
    {},
    { userId: 1 },
    { ...defaultCompletionDeps, send: async () => undefined },
  );
  const run = (await getReport(service.workspaceId, reportId))!.run!;
  const result = await runChild(bundle, memoryMb, heapFlags, {
    workspaceId: service.workspaceId,
    reportId,
    run: runNumber,
    batchCount: run.batchCount,
    recordsPerEvent: REPORT_RUN_JOB_QUEUES['report-rows']!.batchSize ?? 1,
  });
  const done = (await getReport(service.workspaceId, reportId, { consistent: true }))!.run!;
  if (done.status !== 'COMPLETED' || done.completedCells + done.failedCells !== 30_000)
    throw new Error(`10,000-row run: ${done.status}, ${done.completedCells} + ${done.failedCells} cells`);
  return result;
}

/**
 * The child: plain `node` with the function's NODE_OPTIONS (no TypeScript loader), the bundle's
 * handler invoked with one SQS event after another, its memory sampled every 10 ms.
 */
const CHILD_SCRIPT = `
const MB = 1024 * 1024;
process.once('message', async (task) => {
  try {
    const { handler } = await import(process.env.REPORT_BENCH_BUNDLE);
    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline, heapTotal = 0, heapUsed = 0;
    const sample = () => {
      const memory = process.memoryUsage();
      peak = Math.max(peak, memory.rss);
      heapTotal = Math.max(heapTotal, memory.heapTotal);
      heapUsed = Math.max(heapUsed, memory.heapUsed);
    };
    const sampler = setInterval(sample, 10);
    const started = performance.now();
    for (let first = 0; first < task.batchCount; first += task.recordsPerEvent) {
      const Records = [];
      for (let batch = first; batch < Math.min(task.batchCount, first + task.recordsPerEvent); batch++)
        Records.push({
          messageId: 'bench-' + batch,
          body: JSON.stringify({ v: 1, type: 'report-rows', ws: task.workspaceId, reportId: task.reportId, run: task.run, batch }),
          attributes: { ApproximateReceiveCount: '1' },
        });
      const answer = await handler({ Records });
      if (answer.batchItemFailures.length) throw new Error('batches failed: ' + JSON.stringify(answer));
    }
    clearInterval(sampler);
    sample();
    const { getHeapStatistics } = await import('node:v8');
    process.send({
      heapLimitMb: getHeapStatistics().heap_size_limit / MB,
      peakRssMb: peak / MB,
      peakHeapTotalMb: heapTotal / MB,
      peakHeapUsedMb: heapUsed / MB,
      baselineRssMb: baseline / MB,
      batches: task.batchCount,
      seconds: (performance.now() - started) / 1000,
    }, () => process.exit(0));
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
});
`;

function runChild(
  bundle: string,
  memoryMb: number,
  heapFlags: string[],
  task: ChildTask,
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BUNDLE.nodeOptions, '--expose-gc', ...heapFlags, '--input-type=module', '-e', CHILD_SCRIPT],
      {
        // As Lambda runs it: its memory size in the environment (the sandbox sizes its threads by it).
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
          REPORT_BENCH_BUNDLE: pathToFileURL(bundle).href,
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    child.once('message', (result) => resolve(result as ChildResult));
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
    child.send(task);
  });
}

/**
 * Report runs on the local runtime.
 *
 * (a) A 1,000-row report with 3 non-LLM columns (COMPARE, CONTAINS, CODE_EXECUTION in the sandbox) runs
 *     through the gateway and the in-process `report-rows` queue: wall time from the run request to
 *     the queue being idle, rows/s, and DynamoDB calls per cell (every call of the run route and the
 *     workers, counted on the document client).
 * (b) The row worker over a 10,000-row dataset, in a child process of its own (against this process's
 *     emulators), processing every batch of the run one message after another as a warm Lambda
 *     container would: its peak RSS, once with Node's default heap sizing (V8 lets garbage accumulate
 *     up to a large heap before collecting) and once with the heap bounded as in a 256 MB container
 *     (`--max-old-space-size=128 --max-semi-space-size=2`), which shows what the worker really holds.
 */
/** V8 heap flags of a container of 256 MB: old space half of it, small young generation. */
const BOUNDED_HEAP = ['--max-old-space-size=128', '--max-semi-space-size=2'];

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { apiClient, type BenchRow, type Call, countDynamoCalls, fmt } from './support.ts';

const MB = 1024 * 1024;
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

  const rss = await benchWorkerRss(call, service, []);
  const bounded = await benchWorkerRss(call, service, BOUNDED_HEAP);
  const rssValue = (r: ChildResult) =>
    `${fmt(r.peakRssMb, 0)} MB (baseline ${fmt(r.baselineRssMb, 0)} MB, V8 heap used at most ${fmt(r.peakHeapUsedMb, 0)} MB; ${r.batches} batches in ${fmt(r.seconds, 1)} s)`;

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
      name: 'reports: row worker peak RSS, 10,000 rows x 3 columns, heap bounded as in a 256 MB container',
      value: rssValue(bounded),
      target: `< ${TARGETS.rssMb} MB`,
    },
    {
      name: "reports: row worker peak RSS, 10,000 rows x 3 columns, Node's default heap sizing",
      value: rssValue(rss),
      target: 'report',
    },
  ];
}

interface ChildTask {
  workspaceId: number;
  reportId: number;
  run: number;
  batchCount: number;
}
interface ChildResult {
  peakRssMb: number;
  peakHeapUsedMb: number;
  baselineRssMb: number;
  batches: number;
  seconds: number;
}

/** Starts a 10,000-row run without queueing it, and lets a child process run its batches. */
async function benchWorkerRss(
  call: Call,
  service: { workspaceId: number; messaging: { idle(): Promise<void> } },
  heapFlags: string[],
): Promise<ChildResult> {
  const { startReportRun } = await import('#shared/reports/run/start.ts');
  const { defaultCompletionDeps } = await import('#shared/reports/run/complete.ts');
  const { getReport } = await import('#shared/reports/store.ts');
  const reportId = await reportOver(call, service.messaging, 10_000);
  const { runNumber } = await startReportRun(
    service.workspaceId,
    reportId,
    {},
    { userId: 1 },
    { ...defaultCompletionDeps, send: async () => undefined },
  );
  const run = (await getReport(service.workspaceId, reportId))!.run!;
  const result = await runChild(heapFlags, {
    workspaceId: service.workspaceId,
    reportId,
    run: runNumber,
    batchCount: run.batchCount,
  });
  const done = (await getReport(service.workspaceId, reportId, { consistent: true }))!.run!;
  if (done.status !== 'COMPLETED' || done.completedCells + done.failedCells !== 30_000)
    throw new Error(`10,000-row run: ${done.status}, ${done.completedCells} + ${done.failedCells} cells`);
  return result;
}

function runChild(heapFlags: string[], task: ChildTask): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--report-bench-child'], {
      execArgv: ['--import', 'tsx', '--expose-gc', ...heapFlags],
      env: process.env,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('message', (result) => resolve(result as ChildResult));
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
    child.send(task);
  });
}

/** The child: the real row worker's code, one batch message after another. */
async function childMain(task: ChildTask): Promise<ChildResult> {
  const { defaultRowWorkerDeps, processReportRowsMessage } = await import('#shared/reports/run/worker.ts');
  const deps = await defaultRowWorkerDeps();
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let heapUsed = 0;
  const sampler = setInterval(() => {
    const memory = process.memoryUsage();
    peak = Math.max(peak, memory.rss);
    heapUsed = Math.max(heapUsed, memory.heapUsed);
  }, 10);
  const started = performance.now();
  for (let batch = 0; batch < task.batchCount; batch++) {
    await processReportRowsMessage(
      { v: 1, type: 'report-rows', ws: task.workspaceId, reportId: task.reportId, run: task.run, batch },
      { receiveCount: 1 },
      deps,
    );
  }
  clearInterval(sampler);
  return {
    peakRssMb: Math.max(peak, process.memoryUsage().rss) / MB,
    peakHeapUsedMb: heapUsed / MB,
    baselineRssMb: baseline / MB,
    batches: task.batchCount,
    seconds: (performance.now() - started) / 1000,
  };
}

if (process.argv.includes('--report-bench-child')) {
  process.once('message', (task) => {
    childMain(task as ChildTask).then(
      (result) => process.send?.(result, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

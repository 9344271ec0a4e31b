/**
 * Dataset jobs on the local runtime, measured honestly: the emulators and the gateway run in this
 * process, while each job's worker runs in a child process of its own (with in-process queues of its
 * own), so the peak RSS printed is the worker's, not the emulators'.
 *
 * (a) from-file: a ~100 MB CSV, generated as a stream, goes through upload-url and a presigned PUT; the
 *     child accepts it with from-file and its worker parses it: MB/s and peak RSS of the worker.
 * (b) from-filter-params: 50,000 request logs are seeded with BatchWriteItem (through the request-log
 *     repository's key builders); the child accepts the request and its worker turns every log into a
 *     row: wall time from request to event, and the child's peak RSS.
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { DATASET_QUEUES } from '#shared/datasets/jobs.ts';
import { DATASET_JOB_QUEUES } from '../routes/datasets.ts';
import type { BenchRow } from './support.ts';
import { apiClient, type Call, containerHeapFlags, fmt, runBenchChild, serveBenchChild } from './support.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 100 * MB;
const LOGS = 50_000;
/** The memory of each job's function: its V8 heap in the bench is the one it has in that container. */
const FILE_WORKER_MB = DATASET_JOB_QUEUES[DATASET_QUEUES.file.name]!.memoryMb!;
const FILTER_WORKER_MB = DATASET_JOB_QUEUES[DATASET_QUEUES.filter.name]!.memoryMb!;
const TARGETS = { fileMbPerS: 20, fileRssMb: 256, filterSeconds: 60, filterRssMb: 512 };

export async function benchDatasets(): Promise<BenchRow[]> {
  const { startLocalService } = await import('../local/service.ts');
  const service = await startLocalService({ port: 0, dataDir: null });
  try {
    const call = apiClient(service.baseUrl, service.apiKey);
    return [
      ...(await benchFromFile(call, service.workspaceId)),
      ...(await benchFromFilterParams(call, service.workspaceId)),
    ];
  } finally {
    await service.stop();
  }
}

async function newGroup(call: Call, name: string): Promise<number> {
  const answer = await call('POST', '/api/public/v2/dataset-groups', { name: `${name} ${Date.now()}` });
  return answer.dataset_group.id;
}

// ------------------------------------------------------------------------------------------ from-file

const TEXTS = [
  'Summarise the following ticket:\nCustomer says "it broke", again, after the update.',
  'Translate to French: the café opened at 9, and closed at 5.',
  'Short answer',
  'You are a helpful assistant. Answer in JSON: {"answer": "...", "confidence": 0.9}',
];
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * FILE_BYTES of CSV, to within one row, as a stream: a ~1 MB block of rows, built once, repeated, then
 * as many of its rows as still fit. Its size is known up front.
 */
function generateCsv(): { stream: Readable; bytes: number } {
  let text = '';
  const rowEnds: number[] = []; // byte offsets in the block (rows hold line breaks of their own)
  for (let i = 0, bytes = 0; text.length < MB; i++) {
    const row = `${i},user-${i % 977},${quoted(TEXTS[i % TEXTS.length]!)},${quoted(TEXTS[(i + 1) % TEXTS.length]!)},${i % 10}\n`;
    text += row;
    bytes += Buffer.byteLength(row);
    rowEnds.push(bytes);
  }
  const block = Buffer.from(text);
  const head = Buffer.from('id,user,input,expected,score\n');
  const blocks = Math.floor((FILE_BYTES - head.length) / block.length);
  const room = FILE_BYTES - head.length - blocks * block.length;
  const tail = block.subarray(0, rowEnds.findLast((end) => end <= room) ?? 0);
  function* chunks() {
    yield head;
    for (let i = 0; i < blocks; i++) yield block;
    yield tail;
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    bytes: head.length + blocks * block.length + tail.length,
  };
}

/** A streamed PUT to a presigned URL (fetch would need the whole body or a duplex stream). */
function putStream(url: string, stream: Readable, bytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'Content-Length': bytes } }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`upload answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    stream.pipe(req);
  });
}

async function benchFromFile(call: Call, workspaceId: number): Promise<BenchRow[]> {
  const groupId = await newGroup(call, 'bench from-file');
  const upload = await call('POST', '/api/public/v2/dataset-versions/upload-url', { file_name: 'bench.csv' });
  const { stream, bytes } = generateCsv();
  await putStream(upload.upload_url, stream, bytes);

  const result = await runChild(FILE_WORKER_MB, {
    workspaceId,
    handler: 'functions/http/dataset-from-file.ts',
    body: { dataset_group_id: groupId, file_name: 'bench.csv', file_key: upload.file_key },
  });
  const event = result.events[0];
  if (event?.event_type !== 'dataset_version_created_by_file') {
    throw new Error(`from-file bench ended with ${JSON.stringify(result.events)}`);
  }
  const rows = await call('GET', `/api/public/v2/datasets/${event.details.dataset_id}/rows?per_page=1`);
  const label = `datasets from-file: ${fmt(bytes / MB, 0)} MB CSV (${fmt(bytes, 0)} bytes, ${fmt(rows.total, 0)} rows) via upload-url`;
  return [
    {
      name: `${label}: worker throughput`,
      value: `${fmt(bytes / MB / (result.workerMs / 1000), 1)} MB/s (${fmt(result.workerMs / 1000, 1)} s)`,
      target: `>= ${TARGETS.fileMbPerS} MB/s`,
    },
    {
      name: `${label}: worker peak RSS (own process, the heap of its ${FILE_WORKER_MB} MB container)`,
      value: `${fmt(result.peakRssMb, 0)} MB (${fmt(result.baselineRssMb, 0)} MB before the job)`,
      target: `< ${TARGETS.fileRssMb} MB`,
    },
  ];
}

// ------------------------------------------------------------------------------- from-filter-params

const START_MS = Date.parse('2026-01-01T00:00:00Z');

/** Writes LOGS request logs as the repository stores them, with BatchWriteItem, several batches in flight. */
async function seedLogs(workspaceId: number): Promise<void> {
  const { batchWriteItems } = await import('#shared/platform/batch.ts');
  const { nextId } = await import('#shared/platform/ids.ts');
  const { requestLogIndexKeys, requestLogKey } = await import('#shared/request-logs/repository.ts');
  type RequestLogRecord = import('#shared/request-logs/record.ts').RequestLogRecord;

  const record = async (i: number): Promise<RequestLogRecord> => {
    const start = START_MS + i * 1000;
    return {
      id: await nextId('request_log'),
      workspace_id: workspaceId,
      provider: 'openai',
      model: 'gpt-4o',
      api_type: null,
      function_name: '',
      input: {
        type: 'chat',
        messages: [{ role: 'user', content: [{ type: 'text', text: `${TEXTS[i % 4]} #${i}` }] }],
      },
      output: {
        type: 'chat',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: `Answer ${i}` }] }],
      },
      parameters: { temperature: 0.2 },
      tags: i % 2 ? ['bench', 'prod'] : ['bench'],
      metadata: { session: `s-${i % 50}`, user: `u-${i % 7}` },
      prompt_id: null,
      prompt_name: null,
      prompt_version_number: null,
      prompt_input_variables: { question: `question ${i}`, topic: `topic ${i % 13}` },
      input_tokens: 100 + (i % 50),
      output_tokens: 20 + (i % 30),
      price: 0.001,
      score: 0,
      scores: { default: 0 },
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
      request_start_time: start,
      request_end_time: start + 800,
      created_at: start,
    };
  };
  const PER_CALL = 250;
  const IN_FLIGHT = 16;
  for (let i = 0; i < LOGS; i += PER_CALL * IN_FLIGHT) {
    const calls: Promise<void>[] = [];
    for (let from = i; from < Math.min(LOGS, i + PER_CALL * IN_FLIGHT); from += PER_CALL) {
      const indexes = Array.from({ length: Math.min(PER_CALL, LOGS - from) }, (_, k) => from + k);
      const records = await Promise.all(indexes.map(record));
      calls.push(
        batchWriteItems(
          records.map((r) => ({
            PutRequest: {
              Item: {
                ...requestLogKey(workspaceId, r.id),
                ...requestLogIndexKeys(r),
                doc: JSON.stringify(r),
              },
            },
          })),
        ),
      );
    }
    await Promise.all(calls);
  }
}

async function benchFromFilterParams(call: Call, workspaceId: number): Promise<BenchRow[]> {
  const seeded = performance.now();
  await seedLogs(workspaceId);
  const seedSeconds = (performance.now() - seeded) / 1000;
  const groupId = await newGroup(call, 'bench from-filter-params');

  const result = await runChild(FILTER_WORKER_MB, {
    workspaceId,
    handler: 'functions/http/dataset-from-filter-params.ts',
    body: {
      dataset_group_id: groupId,
      filter_group: {
        logic: 'AND',
        filters: [
          {
            field: 'request_start_time',
            operator: 'between',
            value: [new Date(START_MS).toISOString(), new Date(START_MS + LOGS * 1000).toISOString()],
          },
          { field: 'tags', operator: 'contains', value: 'bench' },
        ],
      },
      sort_by: 'request_start_time',
      sort_order: 'asc',
      variables_to_parse: ['output_text'],
    },
  });
  const event = result.events[0];
  if (event?.event_type !== 'dataset_version_created_from_filter_params') {
    throw new Error(`from-filter-params bench ended with ${JSON.stringify(result.events)}`);
  }
  const label = `datasets from-filter-params: ${fmt(event.details.rows_added ?? 0, 0)} of ${fmt(LOGS, 0)} logs`;
  return [
    {
      name: `${label}: wall time, request to event`,
      value: `${fmt(result.totalMs / 1000, 1)} s (seeding ${fmt(seedSeconds, 1)} s, not counted)`,
      target: `< ${TARGETS.filterSeconds} s`,
    },
    {
      name: `${label}: peak RSS (own process, the heap of its ${FILTER_WORKER_MB} MB container)`,
      value: `${fmt(result.peakRssMb, 0)} MB (${fmt(result.baselineRssMb, 0)} MB before the job)`,
      target: `< ${TARGETS.filterRssMb} MB`,
    },
  ];
}

// ------------------------------------------------------------------------------------- child process

interface ChildTask {
  workspaceId: number;
  /** The route that accepts the job, called in the child with a proxy event. */
  handler: string;
  body: unknown;
}

interface ChildResult {
  events: { event_type: string; details: { dataset_id: number; rows_added?: number } }[];
  /** From the route call to the event. */
  totalMs: number;
  /** Inside the worker handler. */
  workerMs: number;
  peakRssMb: number;
  baselineRssMb: number;
}

const CHILD_FLAG = '--dataset-bench-child';

/** The child gets the V8 heap its worker has in its Lambda container (the queue's memory size). */
const runChild = (memoryMb: number, task: ChildTask) =>
  runBenchChild<ChildTask, ChildResult>(import.meta.url, CHILD_FLAG, task, [
    '--expose-gc',
    ...containerHeapFlags(memoryMb),
    ...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/ds/prof'] : []),
  ]);

/**
 * The child: queues of its own (the local runtime's messaging, fed the same queue rows) deliver the job
 * to the real worker in this process, against the parent's emulators.
 */
async function childMain(task: ChildTask): Promise<ChildResult> {
  const { LocalMessaging } = await import('../local/messaging.ts');
  const { ENV, queueUrlEnv } = await import('#shared/platform/config.ts');
  const { REPO_ROOT } = await import('../local/service.ts');
  const { join } = await import('node:path');
  const { pathToFileURL } = await import('node:url');

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  let workerMs = 0;
  let baseline = 0;
  const messaging = new LocalMessaging({
    queues: DATASET_JOB_QUEUES,
    loadWorker: async (file) => {
      const { handler } = await import(pathToFileURL(join(REPO_ROOT, file)).href);
      return async (event) => {
        global.gc?.();
        baseline = process.memoryUsage().rss;
        peak = baseline;
        const started = performance.now();
        try {
          return await handler(event);
        } finally {
          workerMs += performance.now() - started;
        }
      };
    },
  });
  const endpoint = await messaging.start();
  process.env[ENV.sqsEndpoint] = endpoint;
  process.env[ENV.eventsEndpoint] = endpoint;
  for (const name of Object.keys(DATASET_JOB_QUEUES))
    process.env[queueUrlEnv(name)] = messaging.queueUrl(name);

  const { handler } = await import(pathToFileURL(join(REPO_ROOT, task.handler)).href);
  const started = performance.now();
  const answer = await handler(proxyEvent(task.workspaceId, task.body), { awsRequestId: 'bench' } as Context);
  if (answer.statusCode !== 201)
    throw new Error(`${task.handler} answered ${answer.statusCode}: ${answer.body}`);
  await messaging.idle();
  const totalMs = performance.now() - started;
  clearInterval(sampler);
  await messaging.stop();
  return {
    events: messaging.events.map((event) => event.detail as ChildResult['events'][number]),
    totalMs,
    workerMs,
    peakRssMb: Math.max(peak, process.memoryUsage().rss) / MB,
    baselineRssMb: baseline / MB,
  };
}

function proxyEvent(workspaceId: number, body: unknown): APIGatewayProxyEvent {
  return {
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/bench',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/bench',
    requestContext: {
      authorizer: {
        workspaceId: String(workspaceId),
        userId: '1',
        permissions: JSON.stringify({ datasets: 'edit', request_logs: 'read' }),
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

serveBenchChild(CHILD_FLAG, childMain);

import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureWorkspace } from '#shared/auth/api-keys.ts';
import { getDataset as getDatasetRecord, putDataset } from '#shared/datasets/repository.ts';
import { listObjectKeys, putObject } from '#shared/platform/blob-store.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { claimLease, heldBy, keepLeased, releaseLease, renewLease } from '#shared/platform/lease.ts';
import { loadJson } from '#shared/platform/stored-json.ts';
import { listReportHeads, readHead } from '#shared/reports/head.ts';
import { batchKey, columnKey, reportKey } from '#shared/reports/keys.ts';
import type { ReportColumn, ReportRecord, ReportScore } from '#shared/reports/records.ts';
import { getBatch, queryBatches } from '#shared/reports/run/batches.ts';
import { readRowCells } from '#shared/reports/run/cells.ts';
import type { RowsMessage, RunStartMessage } from '#shared/reports/run/queue.ts';
import { STALLED_START_MS, startReportRun } from '#shared/reports/run/start.ts';
import {
  CELLS_INLINE_BYTES,
  INTERNAL_ERROR_MESSAGE,
  processReportRowsMessage,
  type RowWorkerDeps,
} from '#shared/reports/run/worker.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import { NodeFailure } from '#shared/workflows/nodes/types.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { expectErrorLogs } from '#test/support/logs.ts';

/**
 * The row worker against dynalite and s3rver, driven by hand: messages go to an array the test delivers
 * from (twice, concurrently, with a stale attempt), so redeliveries and races are exact, not timed. The
 * report's head and columns are seeded as the report store writes them.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = (await ensureWorkspace('report-run-worker')).workspaceId;
});
afterAll(() => service?.stop());

let nextId = 5_000;

/** A published dataset version of `rows` (columns `input`, `expected`), its rows in one chunk. */
async function seedDataset(rows: [string, string][]) {
  const id = nextId++;
  const chunkKey = `test-report-runs/${id}/chunk-0`;
  await putObject(chunkKey, `${JSON.stringify(rows)}\n`);
  const manifestKey = `test-report-runs/${id}/manifest.json`;
  await putObject(
    manifestKey,
    JSON.stringify({
      v: 1,
      columns: ['input', 'expected'],
      rowCount: rows.length,
      layouts: [[0, 1]],
      chunks: [{ key: chunkKey, rows: rows.length, bytes: 1, layout: 0 }],
    }),
  );
  await putDataset({
    id,
    workspaceId: ws,
    groupId: id,
    groupName: `group-${id}`,
    versionNumber: 1,
    userId: 1,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    columns: ['input', 'expected'],
    rowCount: rows.length,
    manifestKey,
    origin: 'file',
  });
  return { id, groupId: id };
}

const column = (
  reportId: number,
  position: number,
  name: string,
  columnType: ReportColumn['columnType'],
  configuration: Record<string, unknown>,
): ReportColumn => ({
  id: reportId * 100 + position,
  reportId,
  name,
  columnType,
  configuration,
  position,
  isPartOfScore: position === 1,
});

async function seedReport(rows: [string, string][], makeColumns: (reportId: number) => ReportColumn[]) {
  const dataset = await seedDataset(rows);
  const id = nextId++;
  const record: ReportRecord = {
    id,
    workspaceId: ws,
    name: `report-${id}`,
    comment: null,
    tags: [],
    folderId: null,
    datasetGroupId: dataset.groupId,
    datasetId: dataset.id,
    datasetVersionNumber: 1,
    isBlueprint: true,
    parentReportId: null,
    scoreConfiguration: null,
    userId: 1,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    deleted: false,
  };
  await dynamo.send(new PutCommand({ TableName: table(), Item: { ...reportKey(ws, id), ...record } }));
  for (const one of makeColumns(id))
    await dynamo.send(new PutCommand({ TableName: table(), Item: { ...columnKey(ws, id, one.id), ...one } }));
  return record;
}

/** Row i: input `row i`, expected `row i` for even i, else `other`. */
const rowsOf = (count: number): [string, string][] =>
  Array.from({ length: count }, (_, i) => [`row ${i}`, i % 2 === 0 ? `row ${i}` : 'other']);

/** compare (input = expected), marker (fails on `row 3`, else the input upper-cased), has (marker holds ROW). */
const standardColumns = (reportId: number) => [
  column(reportId, 1, 'same', 'COMPARE', {
    sources: ['input', 'expected'],
    comparison_type: { type: 'STRING' },
  }),
  column(reportId, 2, 'marker', 'CODE_EXECUTION', { failOn: 'row 3' }),
  column(reportId, 3, 'has', 'CONTAINS', { source: 'marker', value: 'ROW' }),
];

function harness(options: { throwOn?: string } = {}) {
  const queue: (RowsMessage | RunStartMessage)[] = [];
  const executions = new Map<string, number>();
  const later: { message: RowsMessage; delaySeconds: number }[] = [];
  let clock = Date.now();
  const scored: number[] = [];
  const deps: RowWorkerDeps = {
    now: () => clock,
    send: async (messages) => {
      queue.push(...messages);
    },
    sendLater: async (message, delaySeconds) => {
      later.push({ message, delaySeconds });
    },
    score: async (report): Promise<ReportScore> => {
      scored.push(report.id);
      return { overall_score: 50, score_type: 'single_column', has_custom_scoring: false, details: {} };
    },
    // A stand-in for CODE_EXECUTION (no sandbox here): fails on the configured input.
    execute: async (node, context) => {
      const input = String(context.inputs.input);
      executions.set(input, (executions.get(input) ?? 0) + 1);
      if (options.throwOn !== undefined && input === options.throwOn) throw new Error('worker crashed');
      if (node.node_type === 'CODE_EXECUTION') {
        if (input === node.configuration.failOn) throw new NodeFailure(`marker failed on ${input}`);
        if (node.configuration.huge) return 'x'.repeat(120_000);
        return input.toUpperCase();
      }
      return executeNode(node, context);
    },
    ports: {} as RowWorkerDeps['ports'],
  };
  const deliver = (message: RowsMessage | RunStartMessage, receiveCount = 1) =>
    processReportRowsMessage(message, { receiveCount }, deps);
  async function drain() {
    for (let message = queue.shift(); message; message = queue.shift()) await deliver(message);
  }
  const start = (report: ReportRecord) =>
    startReportRun(ws, report.id, {}, { userId: 1 }, { ...deps, send: async (m) => void queue.push(m) });
  return {
    queue,
    later,
    executions,
    scored,
    deps,
    deliver,
    drain,
    start,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const cellsOf = async (reportId: number) => {
  const head = (await readHead(ws, reportId))!;
  const rows = await readRowCells(head, 0, head.run!.rowCount);
  return rows.map((row) => Object.fromEntries([...row].map(([id, cell]) => [id % 100, cell])));
};

describe('the report row worker on dynalite', () => {
  it('runs every batch once, fails a cell and its dependent, counts, scores and completes', async () => {
    const report = await seedReport(rowsOf(25), standardColumns);
    const h = harness();
    await h.start(report);
    expect(h.queue).toEqual([{ v: 1, type: 'report-run-start', ws, reportId: report.id, run: 1 }]);
    await h.deliver(h.queue.shift()!);
    expect(h.queue.map((m) => (m as RowsMessage).batch)).toEqual([0, 1, 2]);
    // Every batch delivered twice (the second time it is DONE): counted once.
    const batches = [...h.queue];
    await h.drain();
    for (const message of batches) await h.deliver(message);

    const head = (await readHead(ws, report.id))!;
    expect(head.run).toMatchObject({
      number: 1,
      status: 'COMPLETED',
      rowCount: 25,
      batchSize: 10,
      batchCount: 3,
      cellCount: 75,
      startedCells: 75,
      completedCells: 73,
      failedCells: 2,
      score: { overall_score: 50 },
      scoreError: null,
    });
    expect(h.scored).toEqual([report.id]);
    expect(Math.max(...h.executions.values())).toBe(3);

    const cells = await cellsOf(report.id);
    expect(cells).toHaveLength(25);
    expect(cells[2]).toEqual({
      1: { status: 'COMPLETED', value: true, error_message: null },
      2: { status: 'COMPLETED', value: 'ROW 2', error_message: null },
      3: { status: 'COMPLETED', value: true, error_message: null },
    });
    expect(cells[3]).toEqual({
      1: { status: 'COMPLETED', value: false, error_message: null },
      2: { status: 'FAILED', value: null, error_message: 'marker failed on row 3' },
      3: { status: 'FAILED', value: null, error_message: 'depends on column "marker", which failed' },
    });
    // A window across batches, and past the end.
    const window = await readRowCells(head, 8, 30);
    expect(window).toHaveLength(17);
    expect(window[0]!.get(report.id * 100 + 2)?.value).toBe('ROW 8');
  });

  it('answers a batch not yet run as QUEUED cells, and a second run while one runs is a 409', async () => {
    const report = await seedReport(rowsOf(3), standardColumns);
    const h = harness();
    await h.start(report);
    const head = (await readHead(ws, report.id))!;
    expect((await readRowCells(head, 0, 3))[0]!.get(report.id * 100 + 1)).toEqual({
      status: 'QUEUED',
      value: null,
      error_message: null,
    });
    // The same refusal as a column edit's while the report runs.
    await expect(h.start(report)).rejects.toMatchObject({ status: 409, code: 'report_running' });
    await h.drain();
    // Run 2 replaces the cells of run 1.
    await h.start(report);
    await h.drain();
    const again = (await readHead(ws, report.id))!;
    expect(again.run).toMatchObject({ number: 2, status: 'COMPLETED', completedCells: 9 });
    // The replaced run's batches are gone; the new run's cells are read.
    expect(await queryBatches(ws, report.id, 1, 0, 10)).toEqual([]);
    expect(await queryBatches(ws, report.id, 2, 0, 10)).toHaveLength(1);
    expect((await readRowCells(again, 0, 3))[1]!.get(report.id * 100 + 2)?.value).toBe('ROW 1');
  });

  it('refuses the write of a stale attempt: the attempt that took the batch over wins', async () => {
    const report = await seedReport(rowsOf(5), standardColumns);
    const h = harness();
    await h.start(report);
    await h.deliver(h.queue.shift()!);
    const message = h.queue.shift() as RowsMessage;
    const key = batchKey(ws, report.id, 1, 0);
    // A first worker claims the batch and dies; its lease lapses; the redelivery takes it over.
    const first = await claimLease<{ attempt: number }>(key, {
      now: Date.now(),
      leaseMs: 1,
      absentIsQueued: true,
    });
    expect(first?.attempt).toBe(1);
    h.advance(60_000);
    await h.deliver(message, 2);
    const batch = await getBatch(ws, report.id, 1, 0);
    expect(batch).toMatchObject({ status: 'DONE', attempt: 2, completedCells: 13, failedCells: 2 });
    // The first worker comes back: neither its renewal nor a write conditioned on its attempt applies.
    await renewLease(key, 1, Date.now() + 60_000);
    await releaseLease(key, 1);
    const held = heldBy(1);
    await expect(
      dynamo.send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET cells = :x',
          ConditionExpression: held.expression,
          ExpressionAttributeNames: held.names,
          ExpressionAttributeValues: { ...held.values, ':x': '[]' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await getBatch(ws, report.id, 1, 0)).toEqual(batch);
    expect((await readHead(ws, report.id))!.run).toMatchObject({ status: 'COMPLETED', completedCells: 13 });
  });

  it('a batch held under a live lease is left to its worker, and checked again once the lease would lapse', async () => {
    const report = await seedReport(rowsOf(2), standardColumns);
    const h = harness();
    await h.start(report);
    await h.deliver(h.queue.shift()!);
    const message = h.queue.shift() as RowsMessage;
    const key = batchKey(ws, report.id, 1, 0);
    await claimLease(key, { now: h.deps.now(), leaseMs: 600_000, absentIsQueued: true });
    await h.deliver(message);
    expect(h.executions.size).toBe(0);
    expect((await readHead(ws, report.id))!.run?.status).toBe('RUNNING');
    expect(h.later).toEqual([{ message, delaySeconds: 601 }]);
    // Its worker died: the copy, delivered after the lease, takes the batch over.
    h.advance(601_000);
    await h.deliver(h.later.shift()!.message, 2);
    expect((await readHead(ws, report.id))!.run).toMatchObject({ status: 'COMPLETED', completedCells: 6 });
    expect((await getBatch(ws, report.id, 1, 0))?.attempt).toBe(2);
  });

  it('a batch that keeps throwing is released for the next delivery, and FAILED on the last one', async () => {
    const errors = expectErrorLogs();
    const report = await seedReport(rowsOf(12), standardColumns);
    const h = harness({ throwOn: 'row 11' });
    await h.start(report);
    await h.deliver(h.queue.shift()!);
    const [first, second] = h.queue.splice(0) as RowsMessage[];
    await h.deliver(first!);
    await expect(h.deliver(second!, 1)).rejects.toThrow('worker crashed');
    // Released: the next delivery claims it at once (no clock moved).
    await expect(h.deliver(second!, 2)).rejects.toThrow('worker crashed');
    await h.deliver(second!, 5);
    expect(errors).toHaveBeenCalledWith(
      'Report batch failed on its last delivery: its cells are FAILED',
      expect.objectContaining({ batch: 1 }),
    );
    errors.mockRestore();
    const head = (await readHead(ws, report.id))!;
    expect(head.run).toMatchObject({ status: 'COMPLETED', completedCells: 28, failedCells: 8 });
    const cells = await cellsOf(report.id);
    expect(cells[10]![1]).toEqual({ status: 'FAILED', value: null, error_message: INTERNAL_ERROR_MESSAGE });
  });

  it('on its last delivery, a batch whose count fails after its cells are written is still counted, its cells kept', async () => {
    const report = await seedReport(rowsOf(4), standardColumns);
    const h = harness();
    await h.start(report);
    await h.deliver(h.queue.shift()!);
    const message = h.queue.shift() as RowsMessage;
    // DynamoDB refuses the count once (a throttle the SDK's retries did not absorb).
    const send = dynamo.send.bind(dynamo);
    let refused = 0;
    const spy = vi.spyOn(dynamo, 'send').mockImplementation(((command: {
      input?: { UpdateExpression?: string };
    }) => {
      if (refused === 0 && command.input?.UpdateExpression?.includes('runCountedBatches')) {
        refused++;
        return Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
      }
      return send(command as never);
    }) as never);
    const errors = expectErrorLogs();
    try {
      await h.deliver(message, 5);
      expect(errors).toHaveBeenCalledWith(
        'Report batch not counted on its last delivery: counting it again',
        expect.objectContaining({ batch: 0 }),
      );
    } finally {
      spy.mockRestore();
      errors.mockRestore();
    }
    expect(refused).toBe(1);
    // The cells the batch ran are kept, not replaced by FAILED ones; the run ends.
    expect(await getBatch(ws, report.id, 1, 0)).toMatchObject({
      status: 'DONE',
      completedCells: 10,
      failedCells: 2,
    });
    expect((await readHead(ws, report.id))!.run).toMatchObject({
      status: 'COMPLETED',
      completedCells: 10,
      failedCells: 2,
    });
  });

  it('a late message of a run that was replaced runs nothing and leaves nothing in the replaced run', async () => {
    const report = await seedReport(rowsOf(3), standardColumns);
    const h = harness();
    await h.start(report);
    await h.deliver(h.queue.shift()!);
    const late = h.queue[0] as RowsMessage;
    await h.drain();
    await h.start(report);
    await h.drain();
    expect((await readHead(ws, report.id))!.run).toMatchObject({ number: 2, status: 'COMPLETED' });
    expect(await queryBatches(ws, report.id, 1, 0, 10)).toEqual([]);
    h.executions.clear();
    // A duplicate of run 1's batch message, delivered now (this process read run 1 before).
    await h.deliver(late);
    expect(h.executions.size).toBe(0);
    expect(await queryBatches(ws, report.id, 1, 0, 10)).toEqual([]);
    expect((await readHead(ws, report.id))!.run).toMatchObject({
      number: 2,
      status: 'COMPLETED',
      completedCells: 9,
    });
  });

  it('a run whose first message cannot be queued is undone: the report is not left RUNNING (409) for good', async () => {
    const report = await seedReport(rowsOf(12), standardColumns);
    const h = harness();
    const refused = { ...h.deps, send: async () => Promise.reject(new Error('SQS unavailable')) };
    const startRefused = (body: { name?: string } = {}) =>
      startReportRun(ws, report.id, body, { userId: 1 }, refused);
    // The first run: the head has no run again.
    await expect(startRefused()).rejects.toThrow('SQS unavailable');
    expect((await readHead(ws, report.id))!.run).toBeUndefined();
    // It runs when the queue takes the message.
    await h.start(report);
    const late = [...h.queue];
    await h.drain();
    await h.drain();
    const first = (await readHead(ws, report.id))!.run!;
    expect(first).toMatchObject({ number: 1, status: 'COMPLETED', completedCells: 34, failedCells: 2 });
    // The second run: run 1 is the head's run again, its batches still counted once.
    await expect(startRefused()).rejects.toThrow('SQS unavailable');
    expect((await readHead(ws, report.id))!.run).toEqual(first);
    for (const message of late) await h.deliver(message);
    expect((await readHead(ws, report.id))!.run).toEqual(first);
    // A named run: the copy made for it goes away with it.
    const before = await listReportHeads(ws);
    await expect(startRefused({ name: 'copy that never ran' })).rejects.toThrow('SQS unavailable');
    const copies = (await listReportHeads(ws)).filter((r) => !before.some((b) => b.id === r.id));
    expect(copies.map((r) => [r.name, r.deleted])).toEqual([['copy that never ran', true]]);
    // And the report runs again.
    await h.start(report);
    await h.drain();
    await h.drain();
    expect((await readHead(ws, report.id))!.run).toMatchObject({ number: 2, status: 'COMPLETED' });
  });

  it("two run requests at once: the loser (409) neither leaves its snapshot in S3 nor overwrites the winner's", async () => {
    // Columns whose configuration makes the snapshot too big for the head (it goes to S3).
    const pad = 'p'.repeat(40_000);
    const report = await seedReport(rowsOf(3), (id) => [
      column(id, 1, 'same', 'COMPARE', {
        sources: ['input', 'expected'],
        comparison_type: { type: 'STRING' },
      }),
      column(id, 2, 'a', 'CODE_EXECUTION', { pad }),
      column(id, 3, 'b', 'CODE_EXECUTION', { pad }),
    ]);
    // Version 2 of the report's dataset group, of 5 rows.
    const v2 = await seedDataset(rowsOf(5));
    const source = (await getDatasetRecord(ws, v2.id))!;
    const second = nextId++;
    await putDataset({ ...source, id: second, groupId: report.datasetGroupId, versionNumber: 2 });
    const h = harness();
    const deps = { ...h.deps, send: async (m: RunStartMessage) => void h.queue.push(m) };
    // Request B (over version 2) reads the report; request A (version 1) starts run 1 while B reads
    // the columns, before B stores its snapshot and tries its start write.
    const send = dynamo.send.bind(dynamo);
    let raced = false;
    const spy = vi.spyOn(dynamo, 'send').mockImplementation((async (command: object) => {
      if (!raced && command instanceof QueryCommand) {
        raced = true;
        spy.mockImplementation(send as never);
        await startReportRun(ws, report.id, {}, { userId: 1 }, deps);
      }
      return send(command as never);
    }) as never);
    try {
      await expect(
        startReportRun(ws, report.id, { dataset_id: second }, { userId: 1 }, deps),
      ).rejects.toMatchObject({ status: 409 });
    } finally {
      spy.mockRestore();
    }
    expect(raced).toBe(true);
    const head = (await readHead(ws, report.id))!;
    expect(head.run).toMatchObject({ number: 1, rowCount: 3 });
    expect(head.run!.snapshotKey).toBeDefined();
    expect(await loadJson({ key: head.run!.snapshotKey })).toMatchObject({
      dataset: { id: report.datasetId, rowCount: 3 },
    });
    const objects: string[] = [];
    for await (const page of listObjectKeys(`report-runs/${ws}/${report.id}/`)) objects.push(...page);
    expect(objects).toEqual([head.run!.snapshotKey]);
  });

  it('a run whose first message was never sent is started again by a run request once it stalled', async () => {
    const report = await seedReport(rowsOf(4), standardColumns);
    const h = harness();
    // The route died after its start write, before its send.
    await startReportRun(ws, report.id, {}, { userId: 1 }, { ...h.deps, send: async () => undefined });
    expect((await readHead(ws, report.id))!.run).toMatchObject({
      number: 1,
      status: 'RUNNING',
      startedCells: 0,
    });
    // A run request soon after: 409, nothing sent (the message may merely be slow).
    await expect(h.start(report)).rejects.toMatchObject({ status: 409 });
    expect(h.queue).toEqual([]);
    // Once it stalled: still 409, and the first message is sent again; the run then completes.
    h.advance(STALLED_START_MS);
    await expect(h.start(report)).rejects.toMatchObject({ status: 409 });
    expect(h.queue).toEqual([{ v: 1, type: 'report-run-start', ws, reportId: report.id, run: 1 }]);
    await h.drain();
    await h.drain();
    expect((await readHead(ws, report.id))!.run).toMatchObject({
      number: 1,
      status: 'COMPLETED',
      completedCells: 10,
    });
  });

  it('moves values too big for the batch item to S3 and reads them back', async () => {
    const report = await seedReport(rowsOf(4), (id) => [
      column(id, 1, 'big', 'CODE_EXECUTION', { huge: true }),
    ]);
    const h = harness();
    await h.start(report);
    await h.drain();
    const batch = (await getBatch(ws, report.id, 1, 0))!;
    expect(batch.cells!.length).toBeLessThanOrEqual(CELLS_INLINE_BYTES);
    const cells = await cellsOf(report.id);
    expect(cells.map((row) => (row[1]!.value as string).length)).toEqual([
      120_000, 120_000, 120_000, 120_000,
    ]);
  });

  it('a report without rows completes when it starts', async () => {
    const report = await seedReport([], standardColumns);
    const h = harness();
    await h.start(report);
    expect(h.queue).toEqual([]);
    expect((await readHead(ws, report.id))!.run).toMatchObject({ status: 'COMPLETED', cellCount: 0 });
  });

  it('keepLeased renews until stopped', async () => {
    vi.useFakeTimers();
    try {
      let renewals = 0;
      const stop = keepLeased(async () => void renewals++, 1000);
      await vi.advanceTimersByTimeAsync(3500);
      stop();
      await vi.advanceTimersByTimeAsync(3000);
      expect(renewals).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the lease module', () => {
  const key = () => ({ PK: `W#${ws}#LEASETEST`, SK: `I#${nextId++}` });
  const put = (item: Record<string, unknown>) =>
    dynamo.send(new PutCommand({ TableName: table(), Item: item }));

  it('claims a QUEUED item that is ready, not one that is not, nor an absent one unless told', async () => {
    const ready = {
      expression: '#pending <= :zero',
      names: { '#pending': 'pending' },
      values: { ':zero': 0 },
    };
    const waiting = key();
    await put({ ...waiting, status: 'QUEUED', pending: 1 });
    expect(await claimLease(waiting, { now: 1000, leaseMs: 50, ready })).toBeUndefined();
    const due = key();
    await put({ ...due, status: 'QUEUED', pending: 0 });
    expect(await claimLease(due, { now: 1000, leaseMs: 50, ready })).toMatchObject({
      status: 'RUNNING',
      attempt: 1,
      leaseUntil: 1050,
      startedAt: 1000,
    });
    const absent = key();
    expect(await claimLease(absent, { now: 1000, leaseMs: 50 })).toBeUndefined();
    expect(await claimLease(absent, { now: 1000, leaseMs: 50, absentIsQueued: true })).toMatchObject({
      attempt: 1,
    });
  });

  it('takes a RUNNING item over only once its lease lapsed; renewals of the old attempt then do nothing', async () => {
    const item = key();
    await claimLease(item, { now: 1000, leaseMs: 50, absentIsQueued: true });
    expect(await claimLease(item, { now: 1049, leaseMs: 50 })).toBeUndefined();
    await renewLease(item, 1, 2000);
    expect(await claimLease(item, { now: 1999, leaseMs: 50 })).toBeUndefined();
    expect(await claimLease(item, { now: 2001, leaseMs: 50 })).toMatchObject({
      attempt: 2,
      leaseUntil: 2051,
    });
    await renewLease(item, 1, 10_000);
    await releaseLease(item, 1);
    expect(await claimLease(item, { now: 2050, leaseMs: 50 })).toBeUndefined();
    await releaseLease(item, 2);
    expect(await claimLease(item, { now: 2050, leaseMs: 50 })).toMatchObject({ attempt: 3 });
  });

  it('never claims a final item', async () => {
    const item = key();
    await put({ ...item, status: 'DONE', attempt: 1, leaseUntil: 0 });
    expect(await claimLease(item, { now: 5000, leaseMs: 50, absentIsQueued: true })).toBeUndefined();
  });
});

import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReport } from '#shared/reports/head.ts';
import { readRowCells } from '#shared/reports/run/cells.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';
import { compareColumn, publishedDataset, reportOver } from '#test/support/reports.ts';

/**
 * Report runs through the local gateway: a run over a small dataset with non-LLM columns (a cell that
 * fails, its dependent, independent columns that still run), a second run while one runs (409), a named
 * run (a copy), `report_finished` delivered to a webhook, (the restart: report-run-restart.test.ts).
 */
let service: TestService;
let receiver: Receiver;
/** Answers of ENDPOINT columns held until the test lets them go. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  receiver = await startReceiver((request, response) => {
    if (request.path.startsWith('/hold')) return void held.push(response);
    if (request.path.startsWith('/echo'))
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(request.body);
    response.writeHead(204).end();
  });
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
  for (const response of held) response.destroy();
  await receiver?.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
});

const CSV = 'question,expected\nq1,q1\nq2,x\nq3,q3\nq4,x\nq5,q5\nq6,x\n';

/** same (COMPARE), code (throws on q3), upper_has (reads code), has_q (independent, after code). */
const COLUMNS = [
  { ...compareColumn('same'), is_part_of_score: true },
  {
    column_type: 'CODE_EXECUTION',
    name: 'code',
    configuration: {
      language: 'JAVASCRIPT',
      code: "if (data.question === 'q3') throw new Error('no q3 here'); return data.question.toUpperCase();",
    },
  },
  { column_type: 'CONTAINS', name: 'upper_has', configuration: { source: 'code', value: 'Q' } },
  { column_type: 'CONTAINS', name: 'has_q', configuration: { source: 'question', value: 'q' } },
];

/** A report named uniquely with these columns over a new group whose version 1 is `csv`. */
const createReport = (on: TestService, columns: unknown[], csv = CSV) =>
  reportOver(on, csv, { name: uniqueName('pipeline'), columns });

/** The cells of the report's latest run by column name, row by row. */
async function cellsByName(reportId: number, rows: number) {
  const report = (await getReport(service.workspaceId, reportId))!;
  const names = new Map(
    (await service.call('GET', `/reports/${reportId}`)).body.report_columns.map(
      (column: { id: number; name: string }) => [column.id, column.name],
    ),
  );
  return (await readRowCells(report, 0, rows)).map((row) =>
    Object.fromEntries([...row].map(([id, cell]) => [names.get(id), cell])),
  );
}

describe('POST /reports/{report_id}/run', () => {
  it('fills every cell: a failed cell fails its dependent, independent columns still run; the webhook hears of it', async () => {
    const webhook = await service.call('POST', '/api/public/v2/webhooks', {
      body: { url: `${receiver.url}/report-finished`, event_types: ['report_finished'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const { report_id } = await createReport(service, COLUMNS);

    const run = await service.call('POST', `/reports/${report_id}/run`, { body: {} });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body).toEqual({ success: true, report_id });
    await service.messaging.idle();

    const got = await service.call('GET', `/reports/${report_id}`);
    expect(got.body).toMatchObject({
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 22, FAILED: 2, QUEUED: 0, RUNNING: 0 } },
    });
    const cells = await cellsByName(report_id, 6);
    expect(cells[0]).toEqual({
      same: { status: 'COMPLETED', value: true, error_message: null },
      code: { status: 'COMPLETED', value: 'Q1', error_message: null },
      upper_has: { status: 'COMPLETED', value: true, error_message: null },
      has_q: { status: 'COMPLETED', value: true, error_message: null },
    });
    expect(cells[1]!.same).toEqual({ status: 'COMPLETED', value: false, error_message: null });
    expect(cells[2]).toEqual({
      same: { status: 'COMPLETED', value: true, error_message: null },
      code: { status: 'FAILED', value: null, error_message: expect.stringContaining('no q3 here') },
      upper_has: {
        status: 'FAILED',
        value: null,
        error_message: 'depends on column "code", which failed',
      },
      has_q: { status: 'COMPLETED', value: true, error_message: null },
    });

    const delivered = receiver.received.filter((request) => request.path === '/report-finished');
    expect(delivered).toHaveLength(1);
    expect(JSON.parse(delivered[0]!.body)).toMatchObject({
      event_type: 'report_finished',
      details: {
        report_id,
        parent_report_id: null,
        status: 'COMPLETED',
        status_counts: { COMPLETED: 22, FAILED: 2 },
      },
    });
    const off = await service.call('PATCH', `/api/public/v2/webhooks/${webhook.body.webhook.id}`, {
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
  });

  it('answers 409 while the report runs (in place or named), then runs it again with a new run', async () => {
    const { report_id } = await createReport(service, [
      { column_type: 'ENDPOINT', name: 'call', configuration: { url: `${receiver.url}/hold` } },
    ]);
    const first = await service.call('POST', `/reports/${report_id}/run`);
    expect(first.status).toBe(201);
    // (The run writes meanwhile, so these refusals are not counted against the table.)
    const again = await service.call('POST', `/reports/${report_id}/run`, { body: {} });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, message: expect.stringContaining('running') });
    const named = await service.call('POST', `/reports/${report_id}/run`, { body: { name: 'x' } });
    expect(named.status).toBe(409);
    const running = await service.call('GET', `/reports/${report_id}`);
    expect(running.body.status).toBe('RUNNING');

    await releaseHeld(6);
    await service.messaging.idle();
    expect((await service.call('GET', `/reports/${report_id}`)).body).toMatchObject({
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 6, FAILED: 0 } },
    });
    const second = service.call('POST', `/reports/${report_id}/run`);
    await releaseHeld(6);
    expect((await second).status).toBe(201);
    await service.messaging.idle();
    const head = (await getReport(service.workspaceId, report_id))!;
    expect(head.run).toMatchObject({ number: 2, status: 'COMPLETED', completedCells: 6 });
  });

  it('with a name, runs a copy of the report (its parent the report run)', async () => {
    const { report_id } = await createReport(service, COLUMNS.slice(0, 1));
    const run = await service.call('POST', `/reports/${report_id}/run`, { body: { name: 'Run of today' } });
    expect(run.status).toBe(201);
    const copyId = run.body.report_id as number;
    expect(copyId).not.toBe(report_id);
    await service.messaging.idle();
    const copy = await service.call('GET', `/reports/${copyId}`);
    expect(copy.body).toMatchObject({
      report: { name: 'Run of today', is_blueprint: false, parent_report_id: report_id },
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 6, FAILED: 0 } },
    });
    // The blueprint itself did not run.
    expect((await getReport(service.workspaceId, report_id))!.run).toBeUndefined();
  });

  it('refuses what it cannot run, writing nothing', async () => {
    const { report_id } = await createReport(service, COLUMNS.slice(0, 1));
    expect((await service.rejected('POST', '/reports/999999999/run')).status).toBe(404);
    const other = await service.otherWorkspaceKey('report-runs-other');
    expect((await service.rejected('POST', `/reports/${report_id}/run`, { key: other })).status).toBe(404);
    const refresh = await service.rejected('POST', `/reports/${report_id}/run`, {
      body: { refresh_dataset: true },
    });
    expect(refresh.status).toBe(400);
    const unknownDataset = await service.rejected('POST', `/reports/${report_id}/run`, {
      body: { dataset_id: 999999999 },
    });
    expect(unknownDataset.status).toBe(404);
    expect((await service.rejected('POST', `/reports/${report_id}/run`, { body: { name: '' } })).status).toBe(
      422,
    );
  });

  it('refuses a dataset_id that is not a published version of its group, and ill-typed fields, writing nothing', async () => {
    const { report_id } = await createReport(service, COLUMNS.slice(0, 1));
    const run = (body: unknown, key?: string) =>
      service.rejected('POST', `/reports/${report_id}/run`, { body, key });
    // Another workspace's published version: 404, as if unknown.
    const other = await service.otherWorkspaceKey('report-runs-datasets');
    const foreign = await publishedDataset(service, CSV, { key: other, fileName: 'f.csv' });
    expect((await run({ dataset_id: foreign.datasetId })).status).toBe(404);
    // A published version of another group of the workspace, and a group's draft: 400.
    const { groupId: otherGroup } = await publishedDataset(service, CSV);
    const versions = await service.call('GET', '/api/public/v2/datasets', {
      query: { dataset_group_id: otherGroup, per_page: 100 },
    });
    const published = versions.body.datasets.find((d: { version_number: number }) => d.version_number > 0);
    expect((await run({ dataset_id: published.id })).status).toBe(400);
    // A draft of the report's own group: 400.
    const report = (await getReport(service.workspaceId, report_id))!;
    const draft = await service.call('POST', '/api/public/v2/dataset-versions/create-draft', {
      body: { dataset_group_id: report.datasetGroupId, source_dataset_id: report.datasetId },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(202);
    await service.messaging.idle();
    expect((await run({ dataset_id: draft.body.draft_dataset_id })).status).toBe(400);
    for (const body of [
      { dataset_id: '1' },
      { dataset_id: 1.5 },
      { dataset_id: -1 },
      { dataset_id: 1e300 },
      { name: 42 },
      { name: 'x'.repeat(256) },
      { refresh_dataset: 'yes' },
      [1, 2],
      'run',
    ]) {
      const answer = await run(body);
      expect(answer.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
      expect(answer.body).toMatchObject({ success: false });
    }
    expect((await getReport(service.workspaceId, report_id))!.run).toBeUndefined();
  });
});

/** Lets `count` held ENDPOINT calls answer (waiting for them to arrive). */
async function releaseHeld(count: number) {
  for (let released = 0; released < count; ) {
    const response = held.shift();
    if (!response) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('"ok"');
    released++;
  }
}

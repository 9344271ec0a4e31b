import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportKey } from '#shared/reports/keys.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { compareColumn, createDatasetGroup, createReport, publishVersion } from '#test/support/reports.ts';

/**
 * Report definitions through the local gateway: creating evaluation pipelines over a published
 * dataset version, reading them, the evaluations list, column edits, rename and tags, external ids
 * and deletion, with the refusals that must write nothing.
 */
let service: TestService;
let otherKey: string;

const EVALUATIONS = '/api/public/v2/evaluations';

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('other');
});
afterAll(() => service?.stop());

/** A group with `versions` published versions of a CSV with columns question, expected. */
async function datasetGroup(versions = 1, key?: string) {
  const groupId = await createDatasetGroup(service, { key });
  for (let v = 0; v < versions; v++) {
    await publishVersion(service, groupId, 'question,expected\nq1,a1\nq2,a2\n', { key });
  }
  return groupId;
}

describe('POST /reports and GET /reports/{report_id}', () => {
  it('creates a blueprint over the latest published version, with its columns in order', async () => {
    const groupId = await datasetGroup(2);

    const created = await createReport(service, {
      dataset_group_id: groupId,
      name: 'My pipeline',
      columns: [
        compareColumn('same'),
        {
          column_type: 'CONTAINS',
          name: 'has q',
          configuration: { source: 'question', value: 'q' },
          position: 1,
        },
      ],
    });

    expect(created).toEqual({
      success: true,
      report_id: expect.any(Number),
      report_columns: [
        expect.objectContaining({ name: 'has q', column_type: 'CONTAINS', position: 1 }),
        expect.objectContaining({ name: 'same', column_type: 'COMPARE', position: 2 }),
      ],
      external_ids: [],
    });
    const got = await service.call('GET', `/reports/${created.report_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      success: true,
      report: {
        id: created.report_id,
        name: 'My pipeline',
        is_blueprint: true,
        deleted: false,
        dataset_group_id: groupId,
        dataset_version_number: 2,
        parent_report_id: null,
        score: null,
        score_configuration: null,
        tags: [],
        external_ids: [],
        workspace_id: service.workspaceId,
      },
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 0, FAILED: 0, QUEUED: 0, RUNNING: 0 } },
      report_columns: [
        { name: 'has q', position: 1, is_part_of_score: false, score: null, report_id: created.report_id },
        { name: 'same', position: 2, configuration: compareColumn('same').configuration, score: null },
      ],
    });
  });

  it('takes a version number and generates a name when none is given', async () => {
    const groupId = await datasetGroup(2);

    const created = await createReport(service, { dataset_group_id: groupId, dataset_version_number: 1 });

    const got = await service.call('GET', `/reports/${created.report_id}`);
    expect(got.body.report.dataset_version_number).toBe(1);
    expect(got.body.report.name).toMatch(/evaluation/);
  });

  it('refuses a group with only a draft (400), an unknown version and another workspace group (404)', async () => {
    const draftOnly = await createDatasetGroup(service);
    const groupId = await datasetGroup(1);
    const othersGroup = await datasetGroup(1, otherKey);

    const draft = await service.rejected('POST', '/reports', { body: { dataset_group_id: draftOnly } });
    const version = await service.rejected('POST', '/reports', {
      body: { dataset_group_id: groupId, dataset_version_number: 5 },
    });
    const other = await service.rejected('POST', '/reports', { body: { dataset_group_id: othersGroup } });

    expect([draft.status, draft.body.message]).toEqual([
      400,
      'Dataset must have at least one non-draft version',
    ]);
    expect(version.status).toBe(404);
    expect(other.status).toBe(404);
  });

  it('answers 404 for an unknown report and another workspace report', async () => {
    const created = await createReport(service, { dataset_group_id: await datasetGroup(1) });

    const other = await service.call('GET', `/reports/${created.report_id}`, { key: otherKey });
    const unknown = await service.call('GET', '/reports/999999999');

    expect([other.status, other.body.message]).toEqual([404, `Report ${created.report_id} not found`]);
    expect(unknown.status).toBe(404);
  });
});

/** Marks the report's latest run RUNNING (or COMPLETED) as the run part would, straight in the table. */
async function setRunStatus(reportId: number, status: 'RUNNING' | 'COMPLETED') {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: service.dynamodbEndpoint }));
  await client.send(
    new UpdateCommand({
      TableName: service.tableName,
      Key: reportKey(service.workspaceId, reportId),
      UpdateExpression: 'SET #run = :run',
      ExpressionAttributeNames: { '#run': 'run' },
      ExpressionAttributeValues: {
        ':run': {
          number: 1,
          status,
          startedAt: new Date().toISOString(),
          rowCount: 2,
          batchSize: 10,
          batchCount: 1,
          cellCount: 4,
          startedCells: 4,
          completedCells: status === 'RUNNING' ? 1 : 3,
          failedCells: status === 'RUNNING' ? 0 : 1,
          score:
            status === 'COMPLETED'
              ? {
                  overall_score: 50,
                  score_type: 'multi_column',
                  has_custom_scoring: false,
                  details: {
                    columns: [{ column_name: 'first', score: 50, score_type: 'boolean', num_skipped: 0 }],
                  },
                }
              : null,
        },
      },
    }),
  );
}

async function columnsOf(reportId: number) {
  const got = await service.call('GET', `/reports/${reportId}`);
  expect(got.status).toBe(200);
  return got.body.report_columns as { id: number; name: string; position: number; column_type: string }[];
}

describe('columns: POST, PATCH and DELETE /report-columns', () => {
  async function pipeline() {
    const created = await createReport(service, {
      dataset_group_id: await datasetGroup(1),
      columns: [compareColumn('first'), compareColumn('second')],
    });
    return created.report_id as number;
  }

  it('adds a column at a position, shifting the later ones, and at the end by default', async () => {
    const reportId = await pipeline();

    const inserted = await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('middle', ['first', 'question']), position: 2 },
    });
    const appended = await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('last', ['middle', 'second']), is_part_of_score: true },
    });

    expect(inserted.status, JSON.stringify(inserted.body)).toBe(201);
    expect(inserted.body).toEqual({
      success: true,
      report_column: {
        id: expect.any(Number),
        report_id: reportId,
        name: 'middle',
        column_type: 'COMPARE',
        position: 2,
        is_part_of_score: false,
        configuration: compareColumn('middle', ['first', 'question']).configuration,
      },
    });
    expect(appended.body.report_column).toMatchObject({ position: 4, is_part_of_score: true });
    expect((await columnsOf(reportId)).map((c) => [c.name, c.position])).toEqual([
      ['first', 1],
      ['middle', 2],
      ['second', 3],
      ['last', 4],
    ]);
  });

  it('refuses bad columns, writing nothing', async () => {
    const reportId = await pipeline();
    const add = (body: Record<string, unknown>) =>
      service.rejected('POST', '/report-columns', { body: { report_id: reportId, ...body } });

    const duplicate = await add(compareColumn('first'));
    const datasetName = await add(compareColumn('question'));
    const unsupported = await add({ column_type: 'HUMAN', name: 'h', configuration: {} });
    const badConfig = await add({ column_type: 'COMPARE', name: 'c', configuration: { sources: 'x' } });
    const unknownSource = await add(compareColumn('c', ['nope', 'question']));
    const laterSource = await add({ ...compareColumn('c', ['second', 'question']), position: 1 });
    const datasetPosition = await add({ ...compareColumn('c'), position: 0 });
    const noReport = await service.rejected('POST', '/report-columns', {
      body: { report_id: 999999999, ...compareColumn('c') },
    });
    const otherWorkspace = await service.rejected('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('c') },
      key: otherKey,
    });
    const missingField = await add({ column_type: 'COMPARE', name: 'c' });

    expect([duplicate.status, duplicate.body.message]).toEqual([
      400,
      'Report already has a column with that name',
    ]);
    expect([datasetName.status, datasetName.body.message]).toEqual([
      400,
      'Report already has a column with that name',
    ]);
    expect([unsupported.status, unsupported.body.message]).toEqual([
      400,
      'column type HUMAN is not supported',
    ]);
    expect(badConfig.status).toBe(400);
    expect(badConfig.body.message).toMatch(/^invalid configuration for column "c" \(COMPARE\)/);
    expect([unknownSource.status, unknownSource.body.message]).toEqual([
      400,
      'column "c" reads "nope", which is neither a dataset column nor an earlier column',
    ]);
    expect(laterSource.status).toBe(400);
    expect([datasetPosition.status, datasetPosition.body.message]).toEqual([
      403,
      'You can not overwrite dataset columns',
    ]);
    expect(noReport.status).toBe(404);
    expect(otherWorkspace.status).toBe(404);
    expect(missingField.status).toBe(422);
  });

  it('changes a column: name, configuration, position and is_part_of_score', async () => {
    const reportId = await pipeline();
    const [first] = await columnsOf(reportId);

    const patched = await service.call('PATCH', `/report-columns/${first!.id}`, {
      body: {
        report_id: reportId,
        column_type: 'CONTAINS',
        name: 'renamed',
        configuration: { source: 'question', value: 'q' },
        position: 2,
        is_part_of_score: true,
      },
    });

    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.report_column).toEqual({
      id: first!.id,
      report_id: reportId,
      name: 'renamed',
      column_type: 'CONTAINS',
      position: 2,
      is_part_of_score: true,
      configuration: { source: 'question', value: 'q' },
    });
    expect((await columnsOf(reportId)).map((c) => c.name)).toEqual(['second', 'renamed']);
  });

  it('refuses a change that breaks a reader, a column of another report, and another workspace', async () => {
    const reportId = await pipeline();
    const otherReport = await pipeline();
    await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('reader', ['first', 'second']) },
    });
    const [first] = await columnsOf(reportId);

    const rename = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: reportId, column_type: 'COMPARE', name: 'gone' },
    });
    const moveAfterReader = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: reportId, column_type: 'COMPARE', position: 3 },
    });
    const wrongReport = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: otherReport, column_type: 'COMPARE' },
    });
    const otherWorkspace = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: reportId, column_type: 'COMPARE' },
      key: otherKey,
    });
    const noType = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: reportId, name: 'x' },
    });

    expect([rename.status, rename.body.message]).toEqual([
      400,
      'column "reader" reads "first", which is neither a dataset column nor an earlier column',
    ]);
    expect(moveAfterReader.status).toBe(400);
    expect(wrongReport.status).toBe(404);
    expect(otherWorkspace.status).toBe(404);
    expect(noType.status).toBe(422);
  });

  it('deletes a column (204), renumbering the rest; refuses one a later column reads', async () => {
    const reportId = await pipeline();
    await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('reader', ['second', 'question']) },
    });
    const [first, second] = await columnsOf(reportId);

    const refused = await service.rejected('DELETE', `/report-columns/${second!.id}`);
    const otherWorkspace = await service.rejected('DELETE', `/report-columns/${first!.id}`, {
      key: otherKey,
    });
    const deleted = await service.call('DELETE', `/report-columns/${first!.id}`);
    const again = await service.rejected('DELETE', `/report-columns/${first!.id}`);

    expect([refused.status, refused.body.message]).toEqual([
      400,
      'Column "second" is read by column "reader"; change or delete that column first',
    ]);
    expect(otherWorkspace.status).toBe(404);
    expect([deleted.status, deleted.body]).toEqual([204, '']);
    expect(again.status).toBe(404);
    expect((await columnsOf(reportId)).map((c) => [c.name, c.position])).toEqual([
      ['second', 1],
      ['reader', 2],
    ]);
  });

  it('answers 409 to every column edit while the latest run is RUNNING, and accepts them after', async () => {
    const reportId = await pipeline();
    const [first] = await columnsOf(reportId);
    await setRunStatus(reportId, 'RUNNING');

    const add = await service.rejected('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('new') },
    });
    const patch = await service.rejected('PATCH', `/report-columns/${first!.id}`, {
      body: { report_id: reportId, column_type: 'COMPARE', name: 'x' },
    });
    const remove = await service.rejected('DELETE', `/report-columns/${first!.id}`);
    const running = await service.call('GET', `/reports/${reportId}`);
    await setRunStatus(reportId, 'COMPLETED');
    const after = await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...compareColumn('new') },
    });
    // The definition routes never overwrite the run's state on the head.
    await service.call('PATCH', `/reports/${reportId}/rename`, { body: { name: 'renamed', tags: ['t'] } });
    await service.call('POST', `/reports/${reportId}/external-ids`, {
      body: { source: 'run', external_id: 'kept' },
    });
    const completed = await service.call('GET', `/reports/${reportId}`);

    expect([add.status, patch.status, remove.status]).toEqual([409, 409, 409]);
    expect(running.body).toMatchObject({
      status: 'RUNNING',
      stats: { status_counts: { COMPLETED: 1, FAILED: 0, QUEUED: 0, RUNNING: 3 } },
    });
    expect(after.status).toBe(201);
    expect(completed.body).toMatchObject({
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 3, FAILED: 1, QUEUED: 0, RUNNING: 0 } },
      report: { name: 'renamed', score: { overall_score: 50 } },
      report_columns: [
        { name: 'first', score: 50 },
        { name: 'second', score: null },
        { name: 'new', score: null },
      ],
    });
  });
});

describe('PATCH /reports/{report_id}/rename', () => {
  it('renames, replaces tags, clears them with [] and keeps what is not given', async () => {
    const { report_id: id } = await createReport(service, {
      dataset_group_id: await datasetGroup(1),
      name: 'before',
    });

    const both = await service.call('PATCH', `/reports/${id}/rename`, {
      body: { name: 'after', tags: ['a', 'b'] },
    });
    const tagsOnly = await service.call('PATCH', `/reports/${id}/rename`, { body: { tags: ['c'] } });
    const nameOnly = await service.call('PATCH', `/reports/${id}/rename`, { body: { name: 'final' } });
    const cleared = await service.call('PATCH', `/reports/${id}/rename`, { body: { tags: [] } });

    expect(both.body).toEqual({
      success: true,
      report: { id, name: 'after', tags: ['a', 'b'], score_configuration: null },
    });
    expect(tagsOnly.body.report).toMatchObject({ name: 'after', tags: ['c'] });
    expect(nameOnly.body.report).toMatchObject({ name: 'final', tags: ['c'] });
    expect(cleared.body.report).toMatchObject({ name: 'final', tags: [] });
    expect((await service.call('GET', `/reports/${id}`)).body.report).toMatchObject({
      name: 'final',
      tags: [],
    });
  });

  it('answers 422 without name and tags (or both null) or with a bad name; 404 another workspace', async () => {
    const { report_id: id } = await createReport(service, { dataset_group_id: await datasetGroup(1) });

    const empty = await service.rejected('PATCH', `/reports/${id}/rename`, { body: {} });
    const nulls = await service.rejected('PATCH', `/reports/${id}/rename`, {
      body: { name: null, tags: null },
    });
    const blank = await service.rejected('PATCH', `/reports/${id}/rename`, { body: { name: '' } });
    const long = await service.rejected('PATCH', `/reports/${id}/rename`, {
      body: { name: 'x'.repeat(256) },
    });
    const other = await service.rejected('PATCH', `/reports/${id}/rename`, {
      body: { name: 'mine' },
      key: otherKey,
    });

    expect([empty.status, nulls.status, blank.status, long.status]).toEqual([422, 422, 422, 422]);
    expect(other.status).toBe(404);
  });
});

describe('external ids', () => {
  const mapping = (external_id: string) => ({ source: 'ci', external_id });
  const path = (id: number) => `/reports/${id}/external-ids`;

  it('claims them at create; a conflict at create is a 409 that writes nothing', async () => {
    const groupId = await datasetGroup(1);
    const created = await createReport(service, {
      dataset_group_id: groupId,
      external_ids: [mapping('A'), mapping('A')],
    });

    const conflict = await service.rejected('POST', '/reports', {
      body: { dataset_group_id: groupId, external_ids: [mapping('B'), mapping('A')] },
    });

    expect(created.external_ids).toEqual([mapping('A')]);
    expect((await service.call('GET', `/reports/${created.report_id}`)).body.report.external_ids).toEqual([
      mapping('A'),
    ]);
    expect(conflict.status).toBe(409);
  });

  it('attaches idempotently, lists, detaches; 409 for another report, 404 for another workspace', async () => {
    const groupId = await datasetGroup(1);
    const { report_id: id } = await createReport(service, { dataset_group_id: groupId });
    const { report_id: otherId } = await createReport(service, { dataset_group_id: groupId });

    const first = await service.call('POST', path(id), { body: mapping('X') });
    const again = await service.call('POST', path(id), { body: mapping('X') });
    const taken = await service.rejected('POST', path(otherId), { body: mapping('X') });
    const foreign = await service.rejected('POST', path(id), { body: mapping('Y'), key: otherKey });
    const foreignList = await service.call('GET', path(id), { key: otherKey });
    const listed = await service.call('GET', path(id));
    const found = await service.call('GET', EVALUATIONS, {
      query: { external_source: 'ci', external_id: 'X' },
    });
    const detached = await service.call('DELETE', `${path(id)}/ci/X`);
    const gone = await service.call('DELETE', `${path(id)}/ci/X`);

    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.body).toEqual({ success: true, external_id: mapping('X') });
    expect(taken.status).toBe(409);
    expect(foreign.status).toBe(404);
    expect(foreignList.status).toBe(404);
    expect(listed.body).toEqual({ success: true, external_ids: [mapping('X')] });
    expect(found.body.evaluations.map((e: { id: number }) => e.id)).toEqual([id]);
    expect([detached.status, gone.status]).toEqual([200, 404]);
  });
});

describe('GET /api/public/v2/evaluations', () => {
  // A workspace of its own, so that counts and pages see only this block's reports.
  let listKey: string;
  beforeAll(async () => {
    listKey = await service.otherWorkspaceKey('evaluations-list');
  });

  async function make(name: string) {
    const groupId = await datasetGroup(1, listKey);
    return (await createReport(service, { dataset_group_id: groupId, name }, listKey)).report_id as number;
  }

  it('lists top-level reports newest first, with paging, filters, sorting and status', async () => {
    const ids: number[] = [];
    for (const name of ['Alpha one', 'beta two', 'ALPHA three', 'gamma']) ids.push(await make(name));
    const list = async (query: Record<string, string | number | boolean> = {}) => {
      const answer = await service.call('GET', EVALUATIONS, { query, key: listKey });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    await service.call('DELETE', `/reports/${ids[3]}`, { key: listKey });

    const all = await list();
    const paged = await list({ per_page: 2, page: 2 });
    const alpha = await list({ name: 'alpha' });
    const byName = await list({ sort_by: 'name', sort_order: 'asc' });
    const deleted = await list({ status: 'deleted' });
    const everything = await list({ status: 'all' });
    const future = await list({ created_after: '2999-01-01T00:00:00Z' });
    const byEmail = await list({ created_by_email: 'nobody@example.com' });
    const bad = await service.call('GET', EVALUATIONS, { query: { per_page: 101 }, key: listKey });
    const badStatus = await service.call('GET', EVALUATIONS, { query: { status: 'gone' }, key: listKey });

    expect(all).toMatchObject({ success: true, page: 1, per_page: 10, total: 3, pages: 1 });
    expect(all.evaluations.map((e: { id: number }) => e.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all.evaluations[0]).toMatchObject({
      status: 'COMPLETED',
      stats: { status_counts: { COMPLETED: 0 } },
      is_blueprint: true,
    });
    expect(paged).toMatchObject({ page: 2, per_page: 2, total: 3, pages: 2 });
    expect(paged.evaluations.map((e: { id: number }) => e.id)).toEqual([ids[0]]);
    expect(alpha.evaluations.map((e: { name: string }) => e.name)).toEqual(['ALPHA three', 'Alpha one']);
    expect(byName.evaluations.map((e: { name: string }) => e.name)).toEqual([
      'Alpha one',
      'ALPHA three',
      'beta two',
    ]);
    expect(deleted.evaluations.map((e: { id: number }) => e.id)).toEqual([ids[3]]);
    expect(everything.total).toBe(4);
    expect(future.total).toBe(0);
    expect(byEmail.total).toBe(0);
    expect([bad.status, badStatus.status]).toEqual([422, 422]);
  });

  it('nests the copies named runs make under runs with include_runs, never at the top level', async () => {
    const created = await createReport(
      service,
      {
        dataset_group_id: await datasetGroup(1, listKey),
        name: uniqueName('with runs'),
        columns: [compareColumn('c')],
      },
      listKey,
    );
    const id = created.report_id as number;
    const caller = { userId: 1 };
    // Loaded on use, after the service has set the environment the domain code reads.
    const { copyReport } = await import('#shared/reports/store.ts');
    const { requireReport } = await import('#shared/reports/head.ts');
    const source = await requireReport(
      (await service.call('GET', `/reports/${id}`, { key: listKey })).body.report.workspace_id,
      id,
    );
    const copy = await copyReport(source, 'run one', caller);

    const plain = await service.call('GET', EVALUATIONS, { query: { name: 'with runs' }, key: listKey });
    const nested = await service.call('GET', EVALUATIONS, {
      query: { name: 'with runs', include_runs: true },
      key: listKey,
    });
    const copied = await service.call('GET', `/reports/${copy.id}`, { key: listKey });

    expect(plain.body.evaluations.map((e: { id: number }) => e.id)).toEqual([id]);
    expect(plain.body.evaluations[0].runs).toBeUndefined();
    expect(nested.body.evaluations[0].runs).toMatchObject([
      { id: copy.id, name: 'run one', is_blueprint: false, parent_report_id: id, status: 'COMPLETED' },
    ]);
    expect(copied.body.report).toMatchObject({ is_blueprint: false, parent_report_id: id });
    expect(copied.body.report_columns).toEqual([
      expect.objectContaining({
        name: 'c',
        position: 1,
        report_id: copy.id,
        configuration: compareColumn('c').configuration,
      }),
    ]);
    expect(copied.body.report_columns[0].id).not.toBe(created.report_columns[0]!.id);
  });
});

describe('DELETE /reports/{report_id} and /reports/name/{report_name}', () => {
  it('archives a report: 404 everywhere after, listed only with status deleted', async () => {
    const { report_id: id } = await createReport(service, {
      dataset_group_id: await datasetGroup(1),
      columns: [compareColumn('c')],
    });
    const [column] = await columnsOf(id);

    const archived = await service.call('DELETE', `/reports/${id}`);
    const foreign = await service.call('DELETE', `/reports/${id}`, { key: otherKey });

    expect(archived.body).toEqual({ success: true, message: 'Report archived successfully' });
    expect(foreign.status).toBe(404);
    const after = await Promise.all([
      service.call('GET', `/reports/${id}`),
      service.call('DELETE', `/reports/${id}`),
      service.call('PATCH', `/reports/${id}/rename`, { body: { name: 'x' } }),
      service.call('GET', `/reports/${id}/external-ids`),
      service.call('POST', `/reports/${id}/external-ids`, { body: { source: 's', external_id: 'e' } }),
      service.call('POST', '/report-columns', { body: { report_id: id, ...compareColumn('d') } }),
      service.call('PATCH', `/report-columns/${column!.id}`, {
        body: { report_id: id, column_type: 'COMPARE' },
      }),
      service.call('DELETE', `/report-columns/${column!.id}`),
    ]);
    expect(after.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404]);
    const deleted = await service.call('GET', EVALUATIONS, { query: { status: 'deleted', per_page: 100 } });
    expect(deleted.body.evaluations.map((e: { id: number }) => e.id)).toContain(id);
  });

  it('archives every live report of a name, 404 when there is none', async () => {
    const groupId = await datasetGroup(1);
    const name = uniqueName('same name');
    const a = await createReport(service, { dataset_group_id: groupId, name });
    const b = await createReport(service, { dataset_group_id: groupId, name });
    const kept = await createReport(service, { dataset_group_id: groupId, name: `${name} else` });

    const archived = await service.call('DELETE', `/reports/name/${encodeURIComponent(name)}`);
    const none = await service.rejected('DELETE', `/reports/name/${encodeURIComponent(name)}`);

    expect(archived.status).toBe(200);
    expect(none.status).toBe(404);
    expect((await service.call('GET', `/reports/${a.report_id}`)).status).toBe(404);
    expect((await service.call('GET', `/reports/${b.report_id}`)).status).toBe(404);
    expect((await service.call('GET', `/reports/${kept.report_id}`)).status).toBe(200);
  });
});

describe('bad input on POST /reports writes nothing', () => {
  it('refuses bad columns, PYTHON scoring, too many columns and malformed bodies', async () => {
    const groupId = await datasetGroup(1);
    const post = (body: Record<string, unknown>) =>
      service.rejected('POST', '/reports', { body: { dataset_group_id: groupId, ...body } });

    const pythonExplicit = await post({ score_configuration: { code: 'x', code_language: 'PYTHON' } });
    const duplicate = await post({ columns: [compareColumn('a'), compareColumn('a')] });
    const unsupported = await post({ columns: [{ column_type: 'MCP', name: 'm', configuration: {} }] });
    const tooMany = await post({
      columns: Array.from({ length: 51 }, (_, i) => compareColumn(`c${i}`)),
    });
    const noGroup = await service.rejected('POST', '/reports', { body: { name: 'x' } });
    const badXid = await post({ external_ids: [{ source: '', external_id: 'x' }] });

    expect([pythonExplicit.status, pythonExplicit.body.message]).toEqual([
      400,
      'score_configuration.code_language PYTHON is not supported; use JAVASCRIPT',
    ]);
    expect([duplicate.status, duplicate.body.message]).toEqual([
      400,
      'Report already has a column with that name',
    ]);
    expect([unsupported.status, unsupported.body.message]).toEqual([400, 'column type MCP is not supported']);
    expect(tooMany.status).toBe(400);
    expect([noGroup.status, badXid.status]).toEqual([422, 422]);
  });

  it('stores a JavaScript score configuration (the default language)', async () => {
    const created = await createReport(service, {
      dataset_group_id: await datasetGroup(1),
      score_configuration: { code: 'return {score: 100}' },
    });

    const got = await service.call('GET', `/reports/${created.report_id}`);

    expect(got.body.report.score_configuration).toEqual({
      code: 'return {score: 100}',
      code_language: 'JAVASCRIPT',
    });
  });
});

describe('GET /reports/column-types', () => {
  it('answers each runnable type with its configuration schema, the one POST /reports checks', async () => {
    const got = await service.call('GET', '/reports/column-types');
    const byType = Object.fromEntries(
      got.body.column_types.map((t: { column_type: string }) => [t.column_type, t]),
    );
    const count = byType.COUNT;

    expect(got.status).toBe(200);
    expect(Object.keys(byType)).toContain('PROMPT_TEMPLATE');
    expect(Object.keys(byType)).not.toContain('MCP');
    expect(count.description).toBe('how many chars, words, sentences or paragraphs (number)');
    expect(count.configuration_schema.required).toEqual(['source', 'type']);
    expect(count.configuration_schema.properties.type.enum).toEqual([
      'chars',
      'words',
      'sentences',
      'paragraphs',
    ]);
    expect(count.column_reference_fields).toEqual(['source']);
    expect(byType.COMPARE.column_reference_fields).toEqual(['sources']);

    // A configuration made from the schema's enum is accepted; a value outside it is the 400 the form shows.
    const groupId = await datasetGroup(1);
    const column = (type: string) => ({
      column_type: 'COUNT',
      name: 'n',
      configuration: { source: 'question', type },
    });
    const created = await createReport(service, { dataset_group_id: groupId, columns: [column('words')] });
    const refused = await service.rejected('POST', '/reports', {
      body: { dataset_group_id: groupId, columns: [column('lines')] },
    });
    const stored = (await service.call('GET', `/reports/${created.report_id}`)).body.report_columns;
    expect(stored[0].configuration).toEqual({ source: 'question', type: 'words' });
    expect(refused.status).toBe(400);
  });

  it('is read with reports read access only', async () => {
    const reader = await service.keyWithPermissions({ reports: 'read' });
    const promptsOnly = await service.keyWithPermissions({ prompts: 'edit' });

    expect((await service.call('GET', '/reports/column-types', { key: reader })).status).toBe(200);
    expect((await service.rejected('GET', '/reports/column-types', { key: promptsOnly })).status).toBe(403);
    expect((await service.rejected('GET', '/reports/column-types', { key: null })).status).toBe(401);
  });
});

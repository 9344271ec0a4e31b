import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Report definitions through the local gateway: creating evaluation pipelines over a published
 * dataset version, reading them, the evaluations list, column edits, rename and tags, external ids
 * and deletion, with the refusals that must write nothing.
 */
let service: TestService;
let otherKey: string;

const GROUPS = '/api/public/v2/dataset-groups';
const FROM_FILE = '/api/public/v2/dataset-versions/from-file';

let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('other');
});
afterAll(() => service?.stop());

async function createGroup(key?: string) {
  const answer = await service.call('POST', GROUPS, { body: { name: unique('group') }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.dataset_group.id as number;
}

/** A group with `versions` published versions of a CSV with columns question, expected. */
async function datasetGroup(versions = 1, key?: string) {
  const groupId = await createGroup(key);
  for (let v = 0; v < versions; v++) {
    const answer = await service.call('POST', FROM_FILE, {
      body: {
        dataset_group_id: groupId,
        file_name: 'eval.csv',
        file_content_base64: base64(`question,expected\nq1,a1\nq2,a2\n`),
      },
      key,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    await service.messaging.idle();
  }
  return groupId;
}

const compareColumn = (name: string, sources: [string, string] = ['question', 'expected']) => ({
  column_type: 'COMPARE',
  name,
  configuration: { sources, comparison_type: { type: 'STRING' } },
});

async function createReport(body: Record<string, unknown>, key?: string) {
  const answer = await service.call('POST', '/reports', { body, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

describe('POST /reports and GET /reports/{report_id}', () => {
  it('creates a blueprint over the latest published version, with its columns in order', async () => {
    const groupId = await datasetGroup(2);

    const created = await createReport({
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

    const created = await createReport({ dataset_group_id: groupId, dataset_version_number: 1 });

    const got = await service.call('GET', `/reports/${created.report_id}`);
    expect(got.body.report.dataset_version_number).toBe(1);
    expect(got.body.report.name).toMatch(/evaluation/);
  });

  it('refuses a group with only a draft (400), an unknown version and another workspace group (404)', async () => {
    const draftOnly = await createGroup();
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
    const created = await createReport({ dataset_group_id: await datasetGroup(1) });

    const other = await service.call('GET', `/reports/${created.report_id}`, { key: otherKey });
    const unknown = await service.call('GET', '/reports/999999999');

    expect([other.status, other.body.message]).toEqual([404, `Report ${created.report_id} not found`]);
    expect(unknown.status).toBe(404);
  });
});

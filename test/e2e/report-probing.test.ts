import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { compareColumn, createReport, publishedDataset } from '#test/support/reports.ts';

/**
 * Report definitions probed as a careless or hostile client would: values too large to store,
 * PromptLayer's nullable fields, the list's workspace_id, concurrent edits. Every refusal is a clear
 * 4xx that writes nothing.
 */
let service: TestService;
let otherKey: string;

const EVALUATIONS = '/api/public/v2/evaluations';

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('probing-other');
});
afterAll(() => service?.stop());

/** A group with one published version of a CSV with columns question, expected. */
async function datasetGroup() {
  return (await publishedDataset(service, 'question,expected\nq1,a1\n')).groupId;
}

/** A VARIABLE column holding `chars` characters of text. */
const textColumn = (name: string, chars: number) => ({
  column_type: 'VARIABLE',
  name,
  configuration: { value: { type: 'string', value: 'x'.repeat(chars) } },
});

async function columnsOf(reportId: number) {
  const got = await service.call('GET', `/reports/${reportId}`);
  expect(got.status).toBe(200);
  return (got.body.report_columns as { name: string; position: number; configuration: unknown }[]).map(
    ({ name, position }) => ({ name, position }),
  );
}

describe('configurations too large to store', () => {
  it('refuses a column larger than an item can hold with a 413 at create, add and change, writing nothing', async () => {
    const groupId = await datasetGroup();

    const atCreate = await service.rejected('POST', '/reports', {
      body: { dataset_group_id: groupId, columns: [compareColumn('ok'), textColumn('big', 500_000)] },
    });
    expect(atCreate.status).toBe(413);
    expect(atCreate.body.message).toMatch(/column "big"/);

    const { report_id: reportId, report_columns } = await createReport(service, {
      dataset_group_id: groupId,
      columns: [compareColumn('a'), textColumn('small', 10)],
    });
    const added = await service.rejected('POST', '/report-columns', {
      body: { report_id: reportId, ...textColumn('big', 500_000), position: 1 },
    });
    expect(added.status).toBe(413);
    const changed = await service.rejected('PATCH', `/report-columns/${report_columns[1]?.id}`, {
      body: { report_id: reportId, ...textColumn('small', 500_000) },
    });
    expect(changed.status).toBe(413);
    expect(await columnsOf(reportId)).toEqual([
      { name: 'a', position: 1 },
      { name: 'small', position: 2 },
    ]);
  });

  it('bounds the whole report so that reading it back fits one answer', async () => {
    const groupId = await datasetGroup();
    // 50 columns of 200,000 characters each: every one fits an item, together they are 10 MB.
    const { report_id: reportId } = await createReport(service, {
      dataset_group_id: groupId,
      columns: Array.from({ length: 5 }, (_, i) => textColumn(`c${i}`, 200_000)),
    });
    let refused: number | undefined;
    for (let i = 5; i < 50 && refused === undefined; i++) {
      const answer = await service.call('POST', '/report-columns', {
        body: { report_id: reportId, ...textColumn(`c${i}`, 200_000) },
      });
      if (answer.status !== 201) refused = answer.status;
    }
    expect(refused).toBe(413);
    const got = await service.call('GET', `/reports/${reportId}`);
    expect(got.status).toBe(200);
  });
});

describe("PromptLayer's nullable fields", () => {
  it('takes null for a column change it leaves as it is (name, configuration, position, is_part_of_score)', async () => {
    const groupId = await datasetGroup();
    const { report_id: reportId, report_columns } = await createReport(service, {
      dataset_group_id: groupId,
      columns: [compareColumn('a'), compareColumn('b')],
    });
    const changed = await service.call('PATCH', `/report-columns/${report_columns[0]?.id}`, {
      body: {
        report_id: reportId,
        column_type: 'COMPARE',
        name: null,
        configuration: null,
        position: null,
        is_part_of_score: null,
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.report_column).toMatchObject({
      name: 'a',
      position: 1,
      is_part_of_score: false,
      configuration: compareColumn('a').configuration,
    });
  });
});

describe('GET /api/public/v2/evaluations workspace_id', () => {
  it("answers the key's own workspace, 400 for another one, 422 for one that is not an id", async () => {
    const groupId = await datasetGroup();
    const { report_id: reportId } = await createReport(service, {
      dataset_group_id: groupId,
      name: uniqueName('ws'),
    });

    const own = await service.call('GET', EVALUATIONS, {
      query: { workspace_id: service.workspaceId, per_page: 100 },
    });
    expect(own.status).toBe(200);
    expect(own.body.evaluations.map((e: { id: number }) => e.id)).toContain(reportId);

    const foreign = await service.rejected('GET', EVALUATIONS, { query: { workspace_id: 999_999 } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe('Invalid workspace_id');
    const asOther = await service.rejected('GET', EVALUATIONS, {
      query: { workspace_id: service.workspaceId },
      key: otherKey,
    });
    expect(asOther.status).toBe(400);
    expect((await service.rejected('GET', EVALUATIONS, { query: { workspace_id: 'x' } })).status).toBe(422);
  });
});

describe('external ids of an archived report', () => {
  it('are free for another report once it is archived (at create and by attaching), never while it is live', async () => {
    const groupId = await datasetGroup();
    const mapping = { source: 'ci', external_id: uniqueName('pipeline') };
    const other = { source: 'ci', external_id: uniqueName('pipeline') };
    const first = await createReport(service, { dataset_group_id: groupId, external_ids: [mapping, other] });
    const refused = await service.rejected('POST', '/reports', {
      body: { dataset_group_id: groupId, external_ids: [mapping] },
    });
    expect(refused.status).toBe(409);

    expect((await service.call('DELETE', `/reports/${first.report_id}`)).status).toBe(200);
    // The archived report's mappings cannot be detached (it is a 404): they must not block the id for ever.
    expect(
      (await service.call('GET', `/reports/${first.report_id}/external-ids`, { query: {} })).status,
    ).toBe(404);

    const second = await createReport(service, { dataset_group_id: groupId, external_ids: [mapping] });
    const third = await createReport(service, { dataset_group_id: groupId });
    const attached = await service.call('POST', `/reports/${third.report_id}/external-ids`, { body: other });
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);

    const byMapping = async (m: { source: string; external_id: string }) =>
      (
        await service.call('GET', EVALUATIONS, {
          query: { external_source: m.source, external_id: m.external_id, status: 'all' },
        })
      ).body.evaluations.map((e: { id: number; external_ids: unknown[] }) => ({
        id: e.id,
        external_ids: e.external_ids,
      }));
    expect(await byMapping(mapping)).toEqual([{ id: second.report_id, external_ids: [mapping] }]);
    expect(await byMapping(other)).toEqual([{ id: third.report_id, external_ids: [other] }]);
  });
});

describe('any JSON in a column configuration', () => {
  it('stores numbers DynamoDB cannot hold as numbers (beyond 2^53, 1e200, 1e-200) at create, add and change', async () => {
    const groupId = await datasetGroup();
    const raw = `{"ids":[12345678901234567890123,1e200,1e-200,-0.5],"nested":{"":{"seed":98765432109876543210}}}`;
    const column = (name: string) =>
      `{"column_type":"VARIABLE","name":"${name}","configuration":{"value":{"type":"json","value":${raw}}}}`;
    const expected = { value: { type: 'json', value: JSON.parse(raw) } };

    const created = await service.call('POST', '/reports', {
      rawBody: `{"dataset_group_id":${groupId},"columns":[${column('a')}]}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const reportId = created.body.report_id as number;
    const added = await service.call('POST', '/report-columns', {
      rawBody: `{"report_id":${reportId},${column('b').slice(1)}`,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const plain = await service.call('POST', '/report-columns', {
      body: { report_id: reportId, ...textColumn('c', 1) },
    });
    const changed = await service.call('PATCH', `/report-columns/${plain.body.report_column.id}`, {
      rawBody: `{"report_id":${reportId},"column_type":"VARIABLE","configuration":${JSON.stringify(expected).replace(JSON.stringify(JSON.parse(raw)), raw)}}`,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    const got = await service.call('GET', `/reports/${reportId}`);
    expect(got.body.report_columns.map((c: { configuration: unknown }) => c.configuration)).toEqual([
      expected,
      expected,
      expected,
    ]);
  });
});

describe('a generated name', () => {
  it('fits the 1..255 of a report name for a group of the longest name, so it can be deleted by name', async () => {
    const groupName = `${'g'.repeat(240)}${'😀'.repeat(7)}`; // 254 UTF-16 units, astral characters last
    const { groupId } = await publishedDataset(service, 'question\nq\n', { name: groupName });

    const { report_id: reportId } = await createReport(service, { dataset_group_id: groupId });
    const name = (await service.call('GET', `/reports/${reportId}`)).body.report.name as string;

    expect(name.length).toBeLessThanOrEqual(255);
    expect(name).toMatch(/^g+ evaluation \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(name.isWellFormed()).toBe(true);
    const deleted = await service.call('DELETE', `/reports/name/${encodeURIComponent(name)}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  });
});

describe('a page of the evaluations list', () => {
  it('stays within one answer when its reports carry large score codes: the largest are left out, named', async () => {
    const groupId = await datasetGroup();
    const name = uniqueName('large-code');
    const code = `return {score: 1}; // ${'中'.repeat(99_970)}`;
    for (let i = 0; i < 22; i++) {
      await createReport(service, { dataset_group_id: groupId, name, score_configuration: { code } });
    }

    const page = await service.call('GET', EVALUATIONS, { query: { name, per_page: 100 } });

    expect(page.status).toBe(200);
    const items = page.body.evaluations as {
      id: number;
      score_configuration: { code: string } | null;
      omitted_fields?: string[];
    }[];
    expect(items).toHaveLength(22);
    const omitted = items.filter((item) => item.omitted_fields !== undefined);
    expect(omitted.length).toBeGreaterThan(0);
    for (const item of omitted) {
      expect(item).toMatchObject({ omitted_fields: ['score_configuration'], score_configuration: null });
    }
    for (const item of items.filter((i) => i.omitted_fields === undefined)) {
      expect(item.score_configuration?.code).toBe(code);
    }
    const full = await service.call('GET', `/reports/${omitted[0]?.id}`);
    expect(full.body.report.score_configuration).toEqual({ code, code_language: 'JAVASCRIPT' });
  });
});

describe('column edits at the same time', () => {
  it('all apply, each checked against the columns the others left (a lost race is planned again, not a 409)', async () => {
    const groupId = await datasetGroup();
    const { report_id: reportId } = await createReport(service, {
      dataset_group_id: groupId,
      columns: [compareColumn('a')],
    });

    const adds = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        service.call('POST', '/report-columns', {
          body: { report_id: reportId, ...compareColumn(`n${i}`), position: 1 },
        }),
      ),
    );
    expect(adds.map((a) => a.status)).toEqual(Array(8).fill(201));
    const sameName = await Promise.all(
      Array.from({ length: 4 }, () =>
        service.call('POST', '/report-columns', { body: { report_id: reportId, ...compareColumn('same') } }),
      ),
    );
    expect(sameName.map((a) => a.status).sort()).toEqual([201, 400, 400, 400]);
    expect(sameName.find((a) => a.status === 400)?.body.error).toBe('duplicate_column_name');

    const columns = await columnsOf(reportId);
    expect(columns.map((c) => c.position)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(columns.map((c) => c.name).sort()).toEqual(
      ['a', 'same', ...Array.from({ length: 8 }, (_, i) => `n${i}`)].sort(),
    );
  });
});

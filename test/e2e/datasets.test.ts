import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolder } from '#test/support/folders.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Datasets through the local gateway and the in-process queues, as a client sees them: groups,
 * create-draft (and its race), from-file inline and through upload-url, from-filter-params over logged
 * traffic, rows and lists, the events the jobs send, and workspace isolation. A rejected request must
 * leave the table and the bucket as they were.
 */
let service: TestService;
let otherKey: string;

const GROUPS = '/api/public/v2/dataset-groups';
const DATASETS = '/api/public/v2/datasets';
const CREATE_DRAFT = '/api/public/v2/dataset-versions/create-draft';
const FROM_FILE = '/api/public/v2/dataset-versions/from-file';
const UPLOAD_URL = '/api/public/v2/dataset-versions/upload-url';
const FROM_FILTER = '/api/public/v2/dataset-versions/from-filter-params';
const SAVE_DRAFT = '/api/public/v2/dataset-versions/save-draft';
const rowsPath = (id: number) => `${DATASETS}/${id}/rows`;

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('other');
  // Reserve the id blocks, so that later counts see only what a request wrote.
  await createGroup('warm-up');
  await service.call('POST', '/log-request', { body: logRequestBody() });
});
afterAll(() => service?.stop());

let groupSeq = 0;
async function createGroup(name = `group-${++groupSeq}`, key?: string) {
  const answer = await service.call('POST', GROUPS, { body: { name }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { groupId: answer.body.dataset_group.id as number, draftId: answer.body.dataset.id as number };
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Waits until every queued job has run. */
const jobsDone = () => service.messaging.idle();

function eventsFor(datasetId: number) {
  return service.messaging.events
    .map(
      (event) =>
        event.detail as { event_type: string; details: Record<string, unknown>; workspace_id: number },
    )
    .filter((event) => event.details.dataset_id === datasetId);
}

async function datasetsOf(groupId: number, key?: string) {
  const answer = await service.call('GET', DATASETS, {
    query: { dataset_group_id: groupId, per_page: 100 },
    key,
  });
  expect(answer.status).toBe(200);
  return answer.body.datasets as Record<string, any>[];
}

function csvOf(rows: number): string {
  let text = 'id,question,expected\n';
  for (let i = 0; i < rows; i++)
    text += `${i},"Question ${i}, with a comma","Line one\nline ""two"" of ${i}"\n`;
  return text;
}

/** A group with version 1 (a CSV of `rows` rows) and a draft copied from it. */
async function versionAndCopy(rows: number) {
  const { groupId } = await createGroup();
  const file = await service.call('POST', FROM_FILE, {
    body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: base64(csvOf(rows)) },
  });
  await jobsDone();
  const copy = await service.call('POST', CREATE_DRAFT, {
    body: { dataset_group_id: groupId, source_dataset_id: file.body.dataset_id },
  });
  await jobsDone();
  expect(copy.status).toBe(202);
  return {
    groupId,
    versionId: file.body.dataset_id as number,
    draftId: copy.body.draft_dataset_id as number,
  };
}

async function allRows(datasetId: number, query: Record<string, string | number> = {}) {
  const rows: unknown[][] = [];
  let columns: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await service.call('GET', rowsPath(datasetId), {
      query: { ...query, page, per_page: 100 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    columns = answer.body.columns;
    rows.push(
      ...answer.body.rows.map((row: { type: string; value: unknown }[]) => row.map((cell) => cell.value)),
    );
    if (page >= answer.body.pages) return { columns, rows, total: answer.body.total as number };
  }
}

describe('dataset groups', () => {
  it('creates a group with its first, empty draft', async () => {
    const answer = await service.call('POST', GROUPS, {
      body: { name: 'Customer support eval set', folder_id: await createFolder(service) },
    });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      success: true,
      dataset_group: {
        id: expect.any(Number),
        name: 'Customer support eval set',
        workspace_id: service.workspaceId,
      },
      dataset: { id: expect.any(Number), version_number: -1, column_names: [], filter_params: null },
      external_ids: [],
    });
    const listed = await datasetsOf(answer.body.dataset_group.id);
    expect(listed.map((d) => [d.id, d.version_number])).toEqual([[answer.body.dataset.id, -1]]);
  });

  it('refuses a name the workspace already uses (409), but another workspace may use it', async () => {
    await createGroup('taken name');

    const answer = await service.rejected('POST', GROUPS, { body: { name: 'taken name' } });

    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('name_taken');
    await createGroup('taken name', otherKey);
  });

  it('gives exactly one group to two racing requests for one name', async () => {
    const answers = await Promise.all(
      [0, 1, 2].map(() => service.call('POST', GROUPS, { body: { name: 'race' } })),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
  });

  it.each([
    [{}, 422],
    [{ name: '' }, 422],
    [{ name: '   ' }, 422],
    [{ name: 'x'.repeat(256) }, 422],
    [{ name: 'fine', workspace_id: 999_999 }, 400],
    [{ name: 'fine', external_ids: [{ source: '', external_id: 'e' }] }, 422],
  ])('rejects %j with %i and writes nothing', async (body, status) => {
    const answer = await service.rejected('POST', GROUPS, { body });

    expect(answer.status).toBe(status);
  });
});

describe('create-draft', () => {
  it('answers 201 for an empty draft and 409 while the group has one', async () => {
    const { groupId, draftId } = await createGroup();

    const second = await service.rejected('POST', CREATE_DRAFT, { body: { dataset_group_id: groupId } });

    expect(second.status).toBe(409);
    expect(second.body.message).toContain(String(draftId));
  });

  it('gives one 201 and one 409 to two racing requests', async () => {
    const { groupId } = await createGroup();
    await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: base64('a\n1\n') },
    });
    await jobsDone(); // the group's draft is now version 1: no draft left

    const answers = await Promise.all(
      [0, 1].map(() => service.call('POST', CREATE_DRAFT, { body: { dataset_group_id: groupId } })),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const drafts = (await datasetsOf(groupId)).filter((d) => d.version_number === -1);
    expect(drafts.map((d) => d.id)).toEqual([answers.find((a) => a.status === 201)!.body.draft_dataset_id]);
  });

  it('copies the rows of a version of the group (202), asynchronously', async () => {
    const { groupId } = await createGroup();
    const file = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: base64(csvOf(250)) },
    });
    await jobsDone();

    const answer = await service.call('POST', CREATE_DRAFT, {
      body: { dataset_group_id: groupId, source_dataset_id: file.body.dataset_id },
    });
    await jobsDone();

    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ success: true, draft_dataset_id: expect.any(Number) });
    const copy = await allRows(answer.body.draft_dataset_id);
    expect(copy).toEqual(await allRows(file.body.dataset_id));
    expect(copy.total).toBe(250);
    const draft = (await datasetsOf(groupId)).find((d) => d.id === answer.body.draft_dataset_id);
    expect(draft).toMatchObject({
      version_number: -1,
      row_count: 250,
      column_names: ['id', 'question', 'expected'],
    });
  });

  it('refuses a source of another group or a draft (422), and of another workspace (404)', async () => {
    const { groupId: first, draftId: firstDraft } = await createGroup();
    const { groupId: second } = await createGroup();
    const file = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: second, file_name: 'a.csv', file_content_base64: base64('a\n1\n') },
    });
    await jobsDone();
    const secondDraft = await service.call('POST', CREATE_DRAFT, { body: { dataset_group_id: second } });
    const foreign = await createGroup(undefined, otherKey);
    const source = (dataset_group_id: number, source_dataset_id: number, key?: string) =>
      service.rejected('POST', CREATE_DRAFT, { body: { dataset_group_id, source_dataset_id }, key });

    const otherGroup = await source(first, file.body.dataset_id);
    const draftSource = await source(second, secondDraft.body.draft_dataset_id);
    const otherWorkspace = await source(foreign.groupId, file.body.dataset_id, otherKey);
    const otherWorkspaceGroup = await source(foreign.groupId, firstDraft);

    expect(otherGroup.status).toBe(422);
    expect(otherGroup.body.detail[0].loc).toEqual(['body', 'source_dataset_id']);
    expect(draftSource.status).toBe(422);
    expect(otherWorkspace.status).toBe(404);
    expect(otherWorkspaceGroup.status).toBe(404);
  });

  it.each([
    [{ dataset_group_id: 0 }, 422],
    [{ dataset_group_id: 'one' }, 422],
    [{ dataset_group_id: 1, source_dataset_id: 0 }, 422],
    [{ dataset_group_id: 987_654 }, 404],
  ])('rejects %j with %i', async (body, status) => {
    expect((await service.rejected('POST', CREATE_DRAFT, { body })).status).toBe(status);
  });
});

describe('from-file', () => {
  it('turns a CSV of 1,000 rows into version 1 of the group, and its rows read back', async () => {
    const { groupId, draftId } = await createGroup();
    const csv = csvOf(1000);

    const answer = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'support-eval.csv', file_content_base64: base64(csv) },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    // The group's first draft, empty, is the one the file fills.
    expect(answer.body).toEqual({ success: true, message: expect.any(String), dataset_id: draftId });
    expect(eventsFor(draftId)).toEqual([
      {
        event_id: expect.stringMatching(/^ev_/),
        event_type: 'dataset_version_created_by_file',
        details: { dataset_id: draftId, dataset_version_number: 1 },
        user_id: null,
        user_name: null,
        user_email: null,
        workspace_id: service.workspaceId,
        timestamp: expect.any(String),
      },
    ]);
    const { columns, rows, total } = await allRows(draftId);
    expect(columns).toEqual(['id', 'question', 'expected']);
    expect(total).toBe(1000);
    expect(rows[0]).toEqual(['0', 'Question 0, with a comma', 'Line one\nline "two" of 0']);
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(await datasetsOf(groupId)).toMatchObject([
      {
        id: draftId,
        version_number: 1,
        column_names: columns,
        row_count: 1000,
        filter_params: null,
        job_status: 'SUCCESS',
        job_error: null,
      },
    ]);
  });

  it('numbers versions of a group in order, each file on a new draft', async () => {
    const { groupId } = await createGroup();
    const json = JSON.stringify([
      { input: 'a', expected: { n: 1 } },
      { input: 'b', extra: true },
    ]);
    const ids: number[] = [];
    for (const file of ['one.csv', 'two.json', 'three.JSON']) {
      const content = file.endsWith('.csv') ? base64('input\nx\n') : base64(json);
      const answer = await service.call('POST', FROM_FILE, {
        body: { dataset_group_id: groupId, file_name: file, file_content_base64: content },
      });
      expect(answer.status).toBe(201);
      ids.push(answer.body.dataset_id);
      await jobsDone();
    }

    expect((await datasetsOf(groupId)).map((d) => [d.id, d.version_number])).toEqual(
      ids.map((id, i) => [id, i + 1]).reverse(),
    );
    const json2 = await allRows(ids[1]!);
    expect(json2.columns).toEqual(['input', 'expected', 'extra']);
    expect(json2.rows).toEqual([
      ['a', { n: 1 }, null],
      ['b', null, true],
    ]);
  });

  it.each([
    ['a.csv', 'a,b\n1,2,3\n', /row 1 .*3 fields/],
    ['a.csv', 'a,b\n"1,2\n', /unbalanced quotes/],
    ['a.csv', '\n\n', /empty/],
    ['a.json', '{"a": 1}', /array of objects/],
    ['a.json', '[1, 2]', /Row 1 .* not an object/],
  ])('removes the draft of a broken file (%s %j) and sends the failure event', (name, content, reason) =>
    expectFileFails(name, content, reason),
  );

  it('fails a JSON file nested 10,000 deep at once, saying why, and removes its draft', () =>
    expectFileFails(
      'deep.json',
      `[{"a": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`,
      /^Row 1 of the JSON array is nested more than 256 levels deep/,
    ));

  async function expectFileFails(name: string, content: string, reason: RegExp) {
    const { groupId, draftId } = await createGroup();
    const objects = await service.countObjects();

    const answer = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: name, file_content_base64: base64(content) },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    const events = eventsFor(draftId);
    expect(events.map((e) => e.event_type)).toEqual(['dataset_version_created_by_file_failed']);
    expect(events[0]!.details.error_message).toMatch(reason);
    expect(await datasetsOf(groupId)).toEqual([]);
    expect((await service.call('GET', rowsPath(draftId))).status).toBe(404);
    // The removed draft still answers, with the job's failure and its reason; never to another workspace.
    const removed = await service.call('GET', `${DATASETS}/${draftId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.dataset).toMatchObject({
      id: draftId,
      dataset_group_id: groupId,
      is_deleted: true,
      row_count: 0,
      job_status: 'FAILED',
    });
    expect(removed.body.dataset.job_error).toMatch(reason);
    expect((await service.call('GET', `${DATASETS}/${draftId}`, { key: otherKey })).status).toBe(404);
    expect(await service.countObjects(), 'the upload and any rows are gone').toBe(objects);
    expect(service.messaging.deadLetters).toEqual([]);
    // The group has no draft any more.
    expect((await service.call('POST', CREATE_DRAFT, { body: { dataset_group_id: groupId } })).status).toBe(
      201,
    );
  }

  it('refuses a group whose draft holds rows (409 draft_exists) until the draft is saved', async () => {
    const { groupId, versionId, draftId } = await versionAndCopy(3);
    const second = { dataset_group_id: groupId, file_name: 'b.csv', file_content_base64: base64('a\n1\n') };

    const answer = await service.rejected('POST', FROM_FILE, { body: second });
    const saved = await service.call('POST', SAVE_DRAFT, { body: { dataset_group_id: groupId } });
    const retried = await service.call('POST', FROM_FILE, { body: second });
    await jobsDone();

    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      error: 'draft_exists',
      message: expect.stringContaining('save-draft'),
    });
    expect(saved.status).toBe(202);
    expect(retried.status).toBe(201);
    expect((await datasetsOf(groupId)).map((d) => [d.id, d.version_number])).toEqual([
      [retried.body.dataset_id, 3],
      [draftId, 2],
      [versionId, 1],
    ]);
  });

  it('refuses a group whose draft a job is building (409 draft_busy)', async () => {
    const { groupId } = await createGroup();
    const body = (name: string) => ({
      dataset_group_id: groupId,
      file_name: name,
      file_content_base64: base64('a\n1\n'),
    });

    const [first, second] = await Promise.all([
      service.call('POST', FROM_FILE, { body: body('a.csv') }),
      service.call('POST', FROM_FILE, { body: body('b.csv') }),
    ]);
    await jobsDone();

    expect([first.status, second.status].sort()).toEqual([201, 409]);
    expect([first, second].find((a) => a.status === 409)!.body.error).toBe('draft_busy');
  });

  it.each([
    ['bad base64', { file_name: 'a.csv', file_content_base64: 'not base64!' }, 400, 'invalid_base64'],
    ['truncated base64', { file_name: 'a.csv', file_content_base64: 'YWJjZ' }, 400, 'invalid_base64'],
    [
      'bad extension',
      { file_name: 'a.txt', file_content_base64: base64('a\n1\n') },
      400,
      'invalid_file_type',
    ],
    ['no extension', { file_name: 'csv', file_content_base64: base64('a\n1\n') }, 400, 'invalid_file_type'],
    [
      'name too long',
      { file_name: `${'n'.repeat(252)}.csv`, file_content_base64: base64('a\n') },
      422,
      'validation_error',
    ],
    ['empty name', { file_name: '', file_content_base64: base64('a\n') }, 422, 'validation_error'],
    ['empty content', { file_name: 'a.csv', file_content_base64: '' }, 422, 'validation_error'],
    ['no content', { file_name: 'a.csv' }, 422, 'validation_error'],
    [
      'both contents',
      { file_name: 'a.csv', file_content_base64: 'YQ==', file_key: 'uploads/1/x/a.csv' },
      422,
      'validation_error',
    ],
    [
      'unknown group',
      { dataset_group_id: 987_654, file_name: 'a.csv', file_content_base64: 'YQ==' },
      404,
      'not_found',
    ],
  ])('rejects %s and writes nothing', async (_, body, status, error) => {
    const { groupId } = await createGroup();

    const answer = await service.rejected('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, ...body },
    });

    expect(answer.status).toBe(status);
    expect(answer.body.error).toBe(error);
  });

  it('accepts a 255-character name', async () => {
    const { groupId } = await createGroup();
    const answer = await service.call('POST', FROM_FILE, {
      body: {
        dataset_group_id: groupId,
        file_name: `${'n'.repeat(251)}.csv`,
        file_content_base64: base64('a\n1\n'),
      },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    expect(eventsFor(answer.body.dataset_id).map((e) => e.event_type)).toEqual([
      'dataset_version_created_by_file',
    ]);
  });

  it('does not reach another workspace group (404)', async () => {
    const foreign = await createGroup(undefined, otherKey);

    const answer = await service.rejected('POST', FROM_FILE, {
      body: { dataset_group_id: foreign.groupId, file_name: 'a.csv', file_content_base64: base64('a\n1\n') },
    });

    expect(answer.status).toBe(404);
  });
});

describe('save-draft', () => {
  const save = (dataset_group_id: unknown, key?: string) =>
    service.call('POST', SAVE_DRAFT, { body: { dataset_group_id }, key });

  it('makes the group draft its next version as it is (202), sends no event, and frees the group', async () => {
    const { groupId, versionId, draftId } = await versionAndCopy(250);

    const answer = await save(groupId);
    const next = await service.call('POST', CREATE_DRAFT, { body: { dataset_group_id: groupId } });

    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      success: true,
      message: expect.any(String),
      draft_dataset_id: draftId,
      version_number: 2,
    });
    expect(eventsFor(draftId)).toEqual([]);
    expect(next.status).toBe(201);
    const listed = await datasetsOf(groupId);
    expect(listed.map((d) => [d.id, d.version_number, d.row_count])).toEqual([
      [next.body.draft_dataset_id, -1, 0],
      [draftId, 2, 250],
      [versionId, 1, 250],
    ]);
    expect(await allRows(draftId)).toEqual(await allRows(versionId));
  });

  it('saves an empty draft as an empty version', async () => {
    const { groupId, draftId } = await createGroup();

    const answer = await save(groupId);

    expect(answer).toMatchObject({ status: 202, body: { draft_dataset_id: draftId, version_number: 1 } });
    expect(await datasetsOf(groupId)).toMatchObject([
      { id: draftId, version_number: 1, row_count: 0, column_names: [] },
    ]);
    expect((await allRows(draftId)).total).toBe(0);
  });

  it('gives two racing saves of one draft the same answer, and the group one version', async () => {
    const { groupId, draftId } = await createGroup();

    const answers = await Promise.all([save(groupId), save(groupId)]);

    expect(answers.map((a) => [a.status, a.body.draft_dataset_id, a.body.version_number])).toEqual([
      [202, draftId, 1],
      [202, draftId, 1],
    ]);
    expect((await datasetsOf(groupId)).map((d) => [d.id, d.version_number])).toEqual([[draftId, 1]]);
  });

  it('answers 404 when the group has no draft, is unknown or is of another workspace; 422 for a bad body', async () => {
    const { groupId } = await createGroup();
    expect((await save(groupId)).status).toBe(202);
    const foreign = await createGroup(undefined, otherKey);

    const noDraft = await service.rejected('POST', SAVE_DRAFT, { body: { dataset_group_id: groupId } });
    const unknown = await service.rejected('POST', SAVE_DRAFT, { body: { dataset_group_id: 987_654 } });
    const theirs = await service.rejected('POST', SAVE_DRAFT, {
      body: { dataset_group_id: foreign.groupId },
    });
    const bad = await service.rejected('POST', SAVE_DRAFT, { body: { dataset_group_id: 0 } });

    expect(noDraft).toMatchObject({ status: 404, body: { message: expect.stringContaining('no draft') } });
    expect(unknown.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(bad.status).toBe(422);
  });
});

describe('from-file through upload-url', () => {
  async function uploadUrl(fileName: string, key?: string) {
    const answer = await service.call('POST', UPLOAD_URL, { body: { file_name: fileName }, key });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { upload_url: string; file_key: string; method: string; expires_in: number };
  }

  it('takes a file PUT to the presigned URL, by its key', async () => {
    const { groupId, draftId } = await createGroup();
    const target = await uploadUrl('big export.csv');
    expect(target).toMatchObject({ method: 'PUT', expires_in: 900 });
    expect(target.file_key).toMatch(
      new RegExp(`^uploads/${service.workspaceId}/[0-9a-f-]{36}/big export\\.csv$`),
    );

    const put = await fetch(target.upload_url, { method: 'PUT', body: csvOf(300) });
    expect(put.status).toBe(200);
    const objects = await service.countObjects();
    const answer = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'big export.csv', file_key: target.file_key },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    expect(answer.body.dataset_id).toBe(draftId);
    expect(eventsFor(draftId)[0]).toMatchObject({ details: { dataset_version_number: 1 } });
    expect((await allRows(draftId)).total).toBe(300);
    // The upload is consumed: rows, manifest and no upload are what remain.
    expect(await service.countObjects()).toBe(objects - 1 + 2);
  });

  it('refuses a key of another workspace (422), a key never uploaded (400), a file over 100 MB (400)', async () => {
    const { groupId } = await createGroup();
    const foreign = await uploadUrl('theirs.csv', otherKey);
    await fetch(foreign.upload_url, { method: 'PUT', body: 'a\n1\n' });
    const never = await uploadUrl('never.csv');
    const huge = await uploadUrl('huge.csv');
    // Sent as a client with retries sends it: on a loaded machine the emulator may drop a 100 MB body.
    const body = Buffer.alloc(100 * 1024 * 1024 + 1, 0x61);
    let put: Response | undefined;
    for (let attempt = 1; !put; attempt++) {
      put = await fetch(huge.upload_url, { method: 'PUT', body }).catch((error) => {
        if (attempt === 3) throw error;
        return undefined;
      });
    }
    expect(put.status).toBe(200);
    const fromKey = (file_key: string) =>
      service.rejected('POST', FROM_FILE, {
        body: { dataset_group_id: groupId, file_name: 'x.csv', file_key },
      });

    const theirs = await fromKey(foreign.file_key);
    const missing = await fromKey(never.file_key);
    const objects = await service.countObjects();
    const items = await service.countItems();
    const tooLarge = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'x.csv', file_key: huge.file_key },
    });

    expect(theirs.status).toBe(422);
    expect(theirs.body.detail[0].loc).toEqual(['body', 'file_key']);
    expect(missing).toMatchObject({ status: 400, body: { error: 'file_not_found' } });
    expect(tooLarge).toMatchObject({ status: 400, body: { error: 'file_too_large' } });
    // The refused upload leaves nothing behind; nothing else is written.
    expect(await service.countObjects()).toBe(objects - 1);
    expect(await service.countItems()).toBe(items);
    expect((await fromKey(huge.file_key)).body.error).toBe('file_not_found');
  });

  it('signs file_size into the upload URL; refuses a file_size over 100 MB (400)', async () => {
    const sized = await service.call('POST', UPLOAD_URL, { body: { file_name: 'a.csv', file_size: 4 } });
    expect(sized.status).toBe(200);
    expect(new URL(sized.body.upload_url).searchParams.get('X-Amz-SignedHeaders')).toContain(
      'content-length',
    );
    expect((await fetch(sized.body.upload_url, { method: 'PUT', body: 'a\n1\n' })).status).toBe(200);

    const over = await service.rejected('POST', UPLOAD_URL, {
      body: { file_name: 'a.csv', file_size: 100 * 1024 * 1024 + 1 },
    });
    expect(over).toMatchObject({ status: 400, body: { error: 'file_too_large' } });
  });

  it('refuses a key that walks out of the workspace (422): the other workspace file is neither read nor deleted', async () => {
    const { groupId } = await createGroup();
    const foreignGroup = await createGroup(undefined, otherKey);
    const secret = await uploadUrl('secret.csv', otherKey);
    await fetch(secret.upload_url, { method: 'PUT', body: 'token\ns3cr3t\n' });
    const events = service.messaging.events.length;
    const walks = [
      `uploads/${service.workspaceId}/../${secret.file_key.slice('uploads/'.length)}`,
      `uploads/${service.workspaceId}/./../${secret.file_key.slice('uploads/'.length)}`,
      `uploads/${service.workspaceId}/..%2F${secret.file_key.slice('uploads/'.length)}`,
      `uploads/${service.workspaceId}/..\\${secret.file_key.slice('uploads/'.length).replaceAll('/', '\\')}`,
    ];

    for (const file_key of walks) {
      const answer = await service.rejected('POST', FROM_FILE, {
        body: { dataset_group_id: groupId, file_name: 'secret.csv', file_key },
      });
      expect(answer.status, file_key).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'file_key']);
    }
    await jobsDone();

    expect(service.messaging.events.length).toBe(events);
    // The owner's upload is still there, and still theirs to use.
    const theirs = await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: foreignGroup.groupId, file_name: 'secret.csv', file_key: secret.file_key },
      key: otherKey,
    });
    await jobsDone();
    expect(theirs.status).toBe(201);
    expect(eventsFor(theirs.body.dataset_id)[0]).toMatchObject({
      event_type: 'dataset_version_created_by_file',
    });
  });

  it('refuses a file name without .csv or .json (400)', async () => {
    expect((await service.rejected('POST', UPLOAD_URL, { body: { file_name: 'a.xlsx' } })).status).toBe(400);
  });
});

describe('from-filter-params', () => {
  const LOGS = 2000;
  const START = Date.parse('2026-03-01T00:00:00Z');
  const minute = 60_000;
  /** Log id -> its index: what each log looks like follows from the index. */
  const indexOf = new Map<number, number>();
  /** The id of the log of that index (logs are created 25 at a time: ids do not follow the indexes). */
  const idOf = (index: number) => [...indexOf].find(([, i]) => i === index)![0];
  const tagsOf = (i: number) => (i % 3 === 0 ? ['prod'] : i % 3 === 1 ? ['staging'] : ['prod', 'beta']);
  const metadataOf = (i: number): Record<string, string> =>
    i % 4 === 0 ? { app: 'checkout' } : i % 4 === 1 ? { app: 'search' } : { user: `u${i}` };

  beforeAll(async () => {
    const log = async (i: number) => {
      const answer = await service.call('POST', '/log-request', {
        body: logRequestBody({
          request_start_time: new Date(START + i * minute).toISOString(),
          request_end_time: new Date(START + i * minute + 1500).toISOString(),
          tags: tagsOf(i),
          metadata: metadataOf(i),
          prompt_input_variables: { question: `q${i}`, input: `in-${i}` },
          output: {
            type: 'chat',
            messages: [{ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] }],
          },
        }),
      });
      expect(answer.status).toBe(201);
      indexOf.set(answer.body.id, i);
    };
    for (let i = 0; i < LOGS; i += 25) await Promise.all(Array.from({ length: 25 }, (_, j) => log(i + j)));
  }, 120_000);

  const timeRangeTagAndApp = {
    logic: 'AND',
    filters: [
      {
        field: 'request_start_time',
        operator: 'between',
        value: [new Date(START + 500 * minute).toISOString(), new Date(START + 1500 * minute).toISOString()],
      },
      { field: 'tags', operator: 'contains', value: 'prod' },
      { field: 'metadata', operator: 'key_equals', nested_key: 'app', value: 'checkout' },
    ],
  };

  it('fills the group draft with exactly the matching logs and makes it a version', async () => {
    const { groupId, draftId } = await createGroup();

    const answer = await service.call('POST', FROM_FILTER, {
      body: {
        dataset_group_id: groupId,
        filter_group: timeRangeTagAndApp,
        sort_by: 'request_start_time',
        sort_order: 'asc',
        variables_to_parse: ['request_id', 'output_text', 'metadata.app'],
      },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      success: true,
      message: expect.any(String),
      dataset_id: draftId,
      dataset_group_id: groupId,
      version_number: -1,
    });
    const expected = Array.from({ length: LOGS }, (_, i) => i).filter(
      (i) => i >= 500 && i <= 1500 && i % 3 !== 1 && i % 4 === 0,
    );
    const { columns, rows, total } = await allRows(draftId);
    expect(total).toBe(expected.length);
    expect(columns).toEqual([
      'request_id',
      'output_text',
      'metadata.app',
      'question',
      'input',
      'request_input',
      'output',
      'metadata',
      'tags',
    ]);
    expect(rows.map((row) => indexOf.get(row[0] as number))).toEqual(expected);
    const i = expected[0]!;
    expect(rows[0]!.slice(1)).toEqual([
      `answer ${i}`,
      'checkout',
      `q${i}`,
      `in-${i}`,
      logRequestBody().input,
      { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] }] },
      { app: 'checkout' },
      tagsOf(i),
    ]);
    expect(eventsFor(draftId)).toEqual([
      expect.objectContaining({
        event_type: 'dataset_version_created_from_filter_params',
        details: { dataset_id: draftId, rows_added: expected.length, dataset_version_number: 1 },
      }),
    ]);
    const [listed] = await datasetsOf(groupId);
    expect(listed).toMatchObject({ id: draftId, version_number: 1, row_count: expected.length });
    expect(listed!.filter_params).toEqual({
      filter_group: timeRangeTagAndApp,
      sort_by: 'request_start_time',
      sort_order: 'asc',
      variables_to_parse: ['request_id', 'output_text', 'metadata.app'],
    });
  });

  it('takes request_log_ids over the filter, and stops at limit in sort order', async () => {
    const { groupId } = await createGroup();
    const ids = [...indexOf.keys()].slice(0, 40);

    const answer = await service.call('POST', FROM_FILTER, {
      body: {
        dataset_group_id: groupId,
        request_log_ids: ids,
        filter_group: timeRangeTagAndApp,
        sort_by: 'request_start_time',
        sort_order: 'desc',
        limit: 7,
        variables_to_parse: ['id'],
      },
    });
    await jobsDone();

    expect(answer.status).toBe(201);
    const { rows } = await allRows(answer.body.dataset_id);
    const newest = ids
      .map((id) => indexOf.get(id)!)
      .sort((a, b) => b - a)
      .slice(0, 7);
    expect(rows.map((row) => indexOf.get(row[0] as number))).toEqual(newest);
    expect(eventsFor(answer.body.dataset_id)[0]!.details.rows_added).toBe(7);
  });

  it('stores long request_log_ids (in S3): a list shows the first 100 and their count, the dataset all', async () => {
    const { groupId } = await createGroup();
    // Ids of no log are skipped; they make the list long enough to leave the dataset item.
    const ids = [
      ...[...indexOf.keys()].slice(0, 30),
      ...Array.from({ length: 6000 }, (_, i) => 90_000_000 + i),
    ];

    const answer = await service.call('POST', FROM_FILTER, {
      body: { dataset_group_id: groupId, request_log_ids: ids, sort_by: 'input_tokens', q: 'hello' },
    });
    await jobsDone();
    const one = await service.call('GET', `${DATASETS}/${answer.body.dataset_id}`);

    expect(answer.status).toBe(201);
    expect(eventsFor(answer.body.dataset_id)[0]!.details.rows_added).toBe(30);
    const [listed] = await datasetsOf(groupId);
    expect(listed).toMatchObject({
      filter_params: {
        request_log_ids: ids.slice(0, 100),
        request_log_ids_count: 6030,
        sort_by: 'input_tokens',
        q: 'hello',
      },
      filter_params_truncated: true,
    });
    expect(one.status).toBe(200);
    const { filter_params: _, ...rest } = listed!;
    expect(one.body.dataset).toEqual({
      ...rest,
      filter_params: { request_log_ids: ids, sort_by: 'input_tokens', q: 'hello' },
      filter_params_truncated: false,
    });
  });

  it('keeps the list of a dataset made from 50,000 ids small, and shows all of them on the dataset', async () => {
    const { groupId } = await createGroup();
    const ids = Array.from({ length: 50_000 }, (_, i) => 80_000_000 + i);

    const answer = await service.call('POST', FROM_FILTER, {
      body: { dataset_group_id: groupId, request_log_ids: ids },
    });
    const list = await service.call('GET', DATASETS, { query: { dataset_group_id: groupId } });
    const one = await service.call('GET', `${DATASETS}/${answer.body.dataset_id}`);
    await jobsDone();

    expect(answer.status).toBe(201);
    expect(list.body.datasets[0].filter_params).toEqual({
      request_log_ids: ids.slice(0, 100),
      request_log_ids_count: 50_000,
    });
    // Inlined, the ids alone are ~450 KB per dataset: a page of 100 such would pass Lambda's 6 MB.
    expect(JSON.stringify(list.body).length).toBeLessThan(4096);
    expect(one.body.dataset.filter_params.request_log_ids).toEqual(ids);
  }, 60_000);

  it('appends to the rows the group draft already holds', async () => {
    const { groupId } = await createGroup();
    const file = await service.call('POST', FROM_FILE, {
      body: {
        dataset_group_id: groupId,
        file_name: 'a.csv',
        file_content_base64: base64('question,note\nq-file,n\n'),
      },
    });
    await jobsDone();
    const draft = await service.call('POST', CREATE_DRAFT, {
      body: { dataset_group_id: groupId, source_dataset_id: file.body.dataset_id },
    });
    await jobsDone();

    const answer = await service.call('POST', FROM_FILTER, {
      body: {
        dataset_group_id: groupId,
        request_log_ids: [idOf(0), idOf(1)],
        sort_by: 'request_start_time',
        sort_order: 'asc',
      },
    });
    await jobsDone();

    expect(answer.body.dataset_id).toBe(draft.body.draft_dataset_id);
    const { columns, rows } = await allRows(answer.body.dataset_id);
    expect(columns.slice(0, 3)).toEqual(['question', 'note', 'input']);
    expect(rows.map((row) => row.slice(0, 2))).toEqual([
      ['q-file', 'n'],
      ['q0', null],
      ['q1', null],
    ]);
    expect(eventsFor(answer.body.dataset_id)[0]!.details).toMatchObject({
      rows_added: 2,
      dataset_version_number: 2,
    });
  });

  it('rejects a bad filter (422), too many ids (422), limit 0 (422), and an unknown group (404)', async () => {
    const { groupId } = await createGroup();
    const cases: [Record<string, unknown>, number][] = [
      [{ filter_group: { filters: [{ field: 'nope', operator: 'is', value: 1 }] } }, 422],
      [{ filter_group: { filters: [{ field: 'cost', operator: 'contains', value: 'x' }] } }, 422],
      [{ request_log_ids: Array.from({ length: 50_001 }, (_, i) => i + 1) }, 422],
      [{ limit: 0 }, 422],
      [{ sort_by: 'name' }, 422],
      [{ dataset_group_id: 987_654 }, 404],
    ];
    for (const [body, status] of cases) {
      const answer = await service.rejected('POST', FROM_FILTER, {
        body: { dataset_group_id: groupId, ...body },
      });
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
    }
  });

  it('refuses while a job is building the group draft (409)', async () => {
    const { groupId } = await createGroup();
    const body = { dataset_group_id: groupId, request_log_ids: [...indexOf.keys()].slice(0, 3) };

    const [first, second] = await Promise.all([
      service.call('POST', FROM_FILTER, { body }),
      service.call('POST', FROM_FILTER, { body }),
    ]);
    await jobsDone();

    expect([first.status, second.status].sort()).toEqual([201, 409]);
  });
});

describe('rows and lists', () => {
  let groupId: number;
  let datasetId: number;

  beforeAll(async () => {
    ({ groupId, draftId: datasetId } = await createGroup('Rows and lists'));
    await service.call('POST', FROM_FILE, {
      body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: base64(csvOf(1000)) },
    });
    await jobsDone();
  });

  it('pages rows (per_page at most 100) and searches them with q', async () => {
    const page = await service.call('GET', rowsPath(datasetId), { query: { page: 3, per_page: 100 } });
    const search = await service.call('GET', rowsPath(datasetId), {
      query: { q: 'QUESTION 99,', per_page: 5 },
    });
    const tooMany = await service.rejected('GET', rowsPath(datasetId), { query: { per_page: 101 } });

    expect(page.body).toMatchObject({ page: 3, per_page: 100, pages: 10, total: 1000 });
    expect(page.body.rows.map((row: { value: string }[]) => Number(row[0]!.value))).toEqual(
      Array.from({ length: 100 }, (_, i) => 200 + i),
    );
    expect(search.body).toMatchObject({ total: 1, pages: 1 });
    expect(search.body.rows[0][0]).toEqual({ type: 'dataset', value: '99' });
    expect(tooMany.status).toBe(422);
  });

  it('lists by name (case-insensitive part of the group name), with page arithmetic', async () => {
    const answer = await service.call('GET', DATASETS, { query: { name: 'ROWS AND', per_page: 1 } });

    expect(answer.body).toMatchObject({ success: true, page: 1, per_page: 1, total: 1, pages: 1 });
    expect(answer.body.datasets[0]).toMatchObject({
      id: datasetId,
      dataset_group_id: groupId,
      version_number: 1,
      column_names: ['id', 'question', 'expected'],
      is_deleted: false,
      dataset_group: { id: groupId, name: 'Rows and lists', workspace_id: service.workspaceId },
    });
  });

  it('keeps workspaces apart: 404 for rows, nothing in lists', async () => {
    const rows = await service.call('GET', rowsPath(datasetId), { key: otherKey });
    const list = await service.call('GET', DATASETS, { query: { dataset_group_id: groupId }, key: otherKey });

    expect(rows.status).toBe(404);
    expect(list.body).toMatchObject({ datasets: [], total: 0 });
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * POST /api/public/v2/dataset-versions/add-request-log and .../add-trace through the local gateway: one
 * logged request, or one trace or span, appended as a row of the group's draft, the draft made when missing.
 */
let service: TestService;

const GROUPS = '/api/public/v2/dataset-groups';
const ADD_LOG = '/api/public/v2/dataset-versions/add-request-log';
const SAVE_DRAFT = '/api/public/v2/dataset-versions/save-draft';
const CREATE_DRAFT = '/api/public/v2/dataset-versions/create-draft';
const ADD_TRACE = '/api/public/v2/dataset-versions/add-trace';

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

let seq = 0;
async function createGroup(key?: string) {
  const answer = await service.call('POST', GROUPS, { body: { name: `append-${++seq}-${Date.now()}` }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { groupId: answer.body.dataset_group.id as number, draftId: answer.body.dataset.id as number };
}

async function logged(overrides: Record<string, unknown> = {}, key?: string): Promise<number> {
  const answer = await service.call('POST', '/log-request', { body: logRequestBody(overrides), key });
  expect(answer.status).toBe(201);
  return answer.body.id;
}

async function rowsOf(datasetId: number) {
  const answer = await service.call('GET', `/api/public/v2/datasets/${datasetId}/rows`, {
    query: { per_page: 100 },
  });
  expect(answer.status).toBe(200);
  return {
    columns: answer.body.columns as string[],
    rows: answer.body.rows.map((row: { value: unknown }[]) => row.map((cell) => cell.value)) as unknown[][],
  };
}

describe('POST /api/public/v2/dataset-versions/add-request-log', () => {
  it("appends the log as a row of the group's draft (201), column by column as from-filter-params makes it", async () => {
    const { groupId, draftId } = await createGroup();
    const first = await logged({ prompt_input_variables: { question: 'q1' }, tags: ['a'] });
    const second = await logged({ prompt_input_variables: { question: 'q2', locale: 'fr' } });

    const added = await service.call('POST', ADD_LOG, {
      body: { dataset_group_id: groupId, request_log_id: first },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toEqual({ success: true, message: expect.any(String), draft_dataset_id: draftId });
    await service.call('POST', ADD_LOG, { body: { dataset_group_id: groupId, request_log_id: second } });

    const { columns, rows } = await rowsOf(draftId);
    expect(columns).toEqual(['question', 'input', 'output', 'metadata', 'tags', 'locale']);
    expect(rows.map((row) => [row[0], row[4], row[5]])).toEqual([
      ['q1', ['a'], null],
      ['q2', [], 'fr'],
    ]);
    expect(rows[0]![1]).toEqual(logRequestBody().input);

    // Saved, the draft is a version with both rows; the next add makes a new draft.
    const saved = await service.call('POST', SAVE_DRAFT, { body: { dataset_group_id: groupId } });
    expect(saved.status).toBe(202);
    const again = await service.call('POST', ADD_LOG, {
      body: { dataset_group_id: groupId, request_log_id: first },
    });
    expect(again.status).toBe(201);
    expect(again.body.draft_dataset_id).not.toBe(draftId);
    expect((await rowsOf(again.body.draft_dataset_id)).rows).toHaveLength(1);
    expect((await rowsOf(draftId)).rows).toHaveLength(2);
  });

  it('keeps every row of concurrent adds', async () => {
    const { groupId, draftId } = await createGroup();
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => logged({ prompt_input_variables: { question: `c${i}` } })),
    );
    const answers = await Promise.all(
      ids.map((id) =>
        service.call('POST', ADD_LOG, { body: { dataset_group_id: groupId, request_log_id: id } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 201));
    const { rows } = await rowsOf(draftId);
    expect(rows.map((row) => row[0]).sort()).toEqual(ids.map((_, i) => `c${i}`).sort());
  });

  it('refuses an unknown or foreign log or group (404), a key without request_logs read (403), bad bodies (422)', async () => {
    const { groupId } = await createGroup();
    const mine = await logged();
    const otherKey = await service.otherWorkspaceKey('append-other');
    const theirLog = await logged({}, otherKey);
    const theirGroup = (await createGroup(otherKey)).groupId;
    const datasetsOnly = await service.keyWithPermissions({ datasets: 'edit' });
    const readOnly = await service.keyWithPermissions({ datasets: 'read', request_logs: 'read' });
    const refusals: [Record<string, unknown>, number, string?][] = [
      [{ dataset_group_id: groupId, request_log_id: theirLog }, 404],
      [{ dataset_group_id: groupId, request_log_id: 987654321 }, 404],
      [{ dataset_group_id: theirGroup, request_log_id: mine }, 404],
      [{ dataset_group_id: groupId, request_log_id: mine }, 403, datasetsOnly],
      [{ dataset_group_id: groupId, request_log_id: mine }, 403, readOnly],
      [{ dataset_group_id: groupId }, 422],
      [{ dataset_group_id: groupId, request_log_id: 0 }, 422],
    ];
    for (const [body, status, key] of refusals) {
      const answer = await service.rejected('POST', ADD_LOG, { body, key });
      expect(answer.status, JSON.stringify(body)).toBe(status);
    }
  });

  it("creates the group's draft when it has none, which is then the group's one draft", async () => {
    const { groupId, draftId } = await createGroup();
    // No draft: save the first one (empty), then add.
    expect((await service.call('POST', SAVE_DRAFT, { body: { dataset_group_id: groupId } })).status).toBe(
      202,
    );
    const id = await logged({ prompt_input_variables: { question: 'fresh' } });
    const added = await service.call('POST', ADD_LOG, {
      body: { dataset_group_id: groupId, request_log_id: id },
    });
    expect(added.status).toBe(201);
    expect(added.body.draft_dataset_id).not.toBe(draftId);
    expect((await rowsOf(added.body.draft_dataset_id)).rows.map((row) => row[0])).toEqual(['fresh']);
    // The draft made by an add is the group's one draft: create-draft now meets it.
    const conflict = await service.rejected('POST', CREATE_DRAFT, { body: { dataset_group_id: groupId } });
    expect(conflict.status).toBe(409);
  });
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const BASE_NS = 1_700_000_000_000_000_000n;

/** A span as the JavaScript SDK's exporter sends it (wrapWithSpan: function_input / function_output). */
function span(
  traceId: string,
  spanId: string,
  parentId: string | null,
  name: string,
  output: string,
  at: number,
) {
  return {
    name,
    context: { trace_id: traceId, span_id: spanId, trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: parentId,
    start_time: (BASE_NS + BigInt(at)).toString(),
    end_time: (BASE_NS + BigInt(at + 10)).toString(),
    status: { status_code: 'StatusCode.OK' },
    attributes: { function_input: `in:${name}`, function_output: output },
    events: [],
    links: [],
    resource: { attributes: {}, schema_url: '' },
  };
}

/** A trace: a root `pipeline` with children `retrieve`, `answer`, `answer`. */
async function storedTrace(key?: string) {
  const traceId = hex(16);
  const [root, a, b, c] = [hex(8), hex(8), hex(8), hex(8)];
  const posted = await service.call('POST', '/spans-bulk', {
    body: {
      spans: [
        span(traceId, root, null, 'pipeline', 'final', 0),
        span(traceId, a, root, 'retrieve', 'docs', 1),
        span(traceId, b, root, 'answer', 'draft 1', 2),
        span(traceId, c, root, 'answer', 'draft 2', 3),
      ],
    },
    key,
  });
  expect(posted.status, JSON.stringify(posted.body).slice(0, 300)).toBe(201);
  return { traceId, root, child: a };
}

describe('POST /api/public/v2/dataset-versions/add-trace', () => {
  it('adds a whole trace as a row, and a span with its direct children as columns', async () => {
    const { groupId, draftId } = await createGroup();
    const { traceId, root } = await storedTrace();

    const whole = await service.call('POST', ADD_TRACE, {
      body: { dataset_group_id: groupId, trace_id: traceId },
    });
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    expect(whole.body).toEqual({ success: true, message: expect.any(String), draft_dataset_id: draftId });
    const bySpan = await service.call('POST', ADD_TRACE, {
      body: { dataset_group_id: groupId, trace_id: traceId, span_id: root },
    });
    expect(bySpan.status, JSON.stringify(bySpan.body)).toBe(201);

    const { columns, rows } = await rowsOf(draftId);
    expect(columns).toEqual(['trace_id', 'input', 'output', 'spans', 'retrieve', 'answer', 'answer_2']);
    const [traceRow, spanRow] = rows;
    expect(traceRow!.slice(0, 3)).toEqual([traceId, 'in:pipeline', 'final']);
    expect((traceRow![3] as { name: string; children: unknown[] }[])[0]).toMatchObject({
      name: 'pipeline',
      children: [{ name: 'retrieve' }, { name: 'answer' }, { name: 'answer' }],
    });
    expect(spanRow).toEqual([null, 'in:pipeline', 'final', null, 'docs', 'draft 1', 'draft 2']);
  });

  it('refuses an unknown or foreign trace or span (404), a key without request_logs read (403), bad ids (422)', async () => {
    const { groupId } = await createGroup();
    const { traceId } = await storedTrace();
    const otherKey = await service.otherWorkspaceKey('append-trace-other');
    const theirs = await storedTrace(otherKey);
    const datasetsOnly = await service.keyWithPermissions({ datasets: 'edit' });
    const refusals: [Record<string, unknown>, number, string?][] = [
      [{ dataset_group_id: groupId, trace_id: theirs.traceId }, 404],
      [{ dataset_group_id: groupId, trace_id: hex(16) }, 404],
      [{ dataset_group_id: groupId, trace_id: traceId, span_id: theirs.root }, 404],
      [{ dataset_group_id: groupId, trace_id: traceId }, 403, datasetsOnly],
      [{ dataset_group_id: groupId, trace_id: 'not hex' }, 422],
      [{ dataset_group_id: groupId, trace_id: traceId, span_id: '' }, 422],
    ];
    for (const [body, status, key] of refusals) {
      const answer = await service.rejected('POST', ADD_TRACE, { body, key });
      expect(answer.status, JSON.stringify(body)).toBe(status);
    }
  });
});

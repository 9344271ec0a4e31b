import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';
import { compareColumn, publishedDataset } from '#test/support/reports.ts';

/**
 * The headline of evaluation reports, as a user runs one through the local gateway: a dataset version
 * made from a file (50 rows), two published versions of a prompt, a report comparing them with
 * PROMPT_TEMPLATE (v1 and v2), COMPARE, CONTAINS, CODE_EXECUTION and LLM_ASSERTION columns; the run
 * (polled until COMPLETED), its score (built-in, then through the score card, then custom code), its
 * rows page by page, rename and tags, and external ids.
 *
 * LLM calls go to the loopback stub provider through a gate: a loopback proxy that holds the calls
 * while the test looks at the report RUNNING, then lets them through. Answers are chosen by the rows
 * (`[[stub:reply=...]]` in the rendered prompt), so every cell's value is known in advance.
 */
let service: TestService;
let stub: LlmStub;
let gate: Receiver;
let otherKey: string;
let release: () => void = () => undefined;
let opened: Promise<void> = Promise.resolve();

const ENV_NAMES = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] as const;

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
  gate = await startReceiver((request, response) => {
    void opened
      .then(async () => {
        const upstream = await fetch(`${stub.url}${request.path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: String(request.headers.authorization ?? ''),
          },
          body: request.body,
        });
        response
          .writeHead(upstream.status, { 'content-type': 'application/json' })
          .end(await upstream.text());
      })
      // The stub stopped first (the end of the file): the call fails as a provider outage would.
      .catch(() => response.writeHead(502).end());
  });
  process.env.OPENAI_API_KEY = 'sk-report-evaluation-0001';
  process.env.OPENAI_BASE_URL = `${gate.url}/v1`;
  otherKey = await service.otherWorkspaceKey('report-evaluation-other');
});
afterAll(async () => {
  release();
  for (const name of ENV_NAMES) delete process.env[name];
  await Promise.all([service?.stop(), stub?.close(), gate?.close()]);
});

const ROWS = 50;
/** Row i: v1 answers wrongly on every fifth row; the judge says false on every fourth; code fails on rows ending in 3. */
const v1Wrong = (i: number) => i % 5 === 0;
const judgeSaysNo = (i: number) => i % 4 === 0;
const codeFails = (i: number) => i % 10 === 3;

function datasetCsv(): string {
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  let csv = 'question,expected,rubric\n';
  for (let i = 0; i < ROWS; i++) {
    const reply = v1Wrong(i) ? 'no idea' : `answer ${i}`;
    const verdict = judgeSaysNo(i) ? 'false' : 'true';
    csv += [
      quote(`[[stub:reply=${reply}]] question ${i}`),
      quote(`answer ${i}`),
      quote(`[[stub:reply=${verdict}]] the answer is on topic`),
    ].join(',');
    csv += '\n';
  }
  return csv;
}

const chatTemplate = (user: string, variables: string[]) => ({
  type: 'chat',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You answer briefly.' }] },
    { role: 'user', content: [{ type: 'text', text: user }] },
  ],
  input_variables: variables,
});

/** A dataset version from a CSV file (version 1 of a new group). */
const datasetVersion = () => publishedDataset(service, datasetCsv(), { fileName: 'questions.csv' });

const CODE = `
  if (data.expected.endsWith('3')) throw new Error('unlucky row');
  return data.v1 === data.v2;
`;

function reportColumns(promptName: string) {
  return [
    {
      column_type: 'PROMPT_TEMPLATE',
      name: 'v1',
      configuration: {
        template: { name: promptName, version_number: 1 },
        prompt_template_variable_mappings: { question: 'question' },
      },
    },
    {
      column_type: 'PROMPT_TEMPLATE',
      name: 'v2',
      configuration: {
        template: { name: promptName, version_number: 2 },
        prompt_template_variable_mappings: { question: 'question', expected: 'expected' },
      },
    },
    { ...compareColumn('v1 matches', ['v1', 'expected']), is_part_of_score: true },
    {
      column_type: 'CONTAINS',
      name: 'v2 mentions',
      configuration: { source: 'v2', value_source: 'expected' },
      is_part_of_score: true,
    },
    {
      column_type: 'CODE_EXECUTION',
      name: 'same answer',
      configuration: { code: CODE, language: 'JAVASCRIPT' },
    },
    {
      column_type: 'LLM_ASSERTION',
      name: 'judge',
      configuration: { source: 'v2', prompt_source: 'rubric' },
    },
  ];
}
const DATASET_COLUMNS = ['question', 'expected', 'rubric'];
const EVAL_COLUMNS = ['v1', 'v2', 'v1 matches', 'v2 mentions', 'same answer', 'judge'];

type EvalCell = { type: 'eval'; status: string; value: unknown; error_message: string | null };

/** What each evaluation cell of row i holds once the run is done. */
function expectedCells(i: number): Omit<EvalCell, 'type'>[] {
  const v1 = v1Wrong(i) ? 'no idea' : `answer ${i}`;
  const done = (value: unknown) => ({ status: 'COMPLETED', value, error_message: null });
  // A cell whose node called a model names the request log it recorded.
  const logged = (value: unknown) => ({ ...done(value), request_log_id: expect.any(Number) });
  return [
    logged(v1),
    logged(`answer ${i}`),
    done(!v1Wrong(i)),
    done(true),
    codeFails(i)
      ? { status: 'FAILED', value: null, error_message: expect.stringContaining('unlucky row') }
      : done(!v1Wrong(i)),
    logged(!judgeSaysNo(i)),
  ];
}

async function getReport(reportId: number) {
  const answer = await service.call('GET', `/reports/${reportId}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

/** Polls GET /reports/{id} as a client does until COMPLETED; between polls the queues drain. */
async function completed(reportId: number) {
  for (let poll = 0; poll < 30; poll++) {
    const answer = await getReport(reportId);
    if (answer.status === 'COMPLETED') return answer;
    expect(answer.status).toBe('RUNNING');
    await service.messaging.idle();
  }
  throw new Error(`report ${reportId} is still RUNNING`);
}

async function score(reportId: number, key?: string) {
  return service.call('GET', `/reports/${reportId}/score`, { key });
}

async function rowsPage(reportId: number, page: number, perPage: number, key?: string) {
  return service.call('GET', `/api/public/v2/evaluations/${reportId}/rows`, {
    query: { page, per_page: perPage },
    key,
  });
}

const scoreCard = (reportId: number, body: unknown, key?: string) =>
  service.call('PATCH', `/reports/${reportId}/score-card`, { body, key });

describe('a report comparing two prompt versions over 50 rows', () => {
  let reportId: number;

  beforeAll(async () => {
    const { groupId } = await datasetVersion();
    const promptName = uniqueName('report-prompt');
    await publish(service, promptName, chatTemplate('{question}', ['question']));
    await publish(
      service,
      promptName,
      chatTemplate('[[stub:reply={expected}]] {question}', ['question', 'expected']),
    );
    const created = await service.call('POST', '/reports', {
      body: {
        dataset_group_id: groupId,
        name: uniqueName('v1 vs v2'),
        columns: reportColumns(promptName),
        external_ids: [{ source: 'ci', external_id: `nightly-${groupId}` }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    reportId = created.body.report_id;
  });

  it('answers no score and NOT_RUN cells before its first run', async () => {
    expect((await score(reportId)).body).toEqual({
      success: true,
      message: 'success',
      score: {
        overall_score: null,
        score_type: 'none',
        has_custom_scoring: false,
        details: { message: 'The report has not been run yet' },
      },
    });
    const page = await rowsPage(reportId, 1, 2);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body).toMatchObject({
      columns: [...DATASET_COLUMNS, ...EVAL_COLUMNS],
      page: 1,
      per_page: 2,
      pages: 25,
      total: 50,
    });
    expect(page.body.rows[1].slice(0, 3)).toEqual([
      { type: 'dataset', value: '[[stub:reply=answer 1]] question 1' },
      { type: 'dataset', value: 'answer 1' },
      { type: 'dataset', value: '[[stub:reply=true]] the answer is on topic' },
    ]);
    expect(page.body.rows[1].slice(3)).toEqual(
      EVAL_COLUMNS.map(() => ({ type: 'eval', status: 'NOT_RUN', value: null, error_message: null })),
    );
  });

  it('runs every row: RUNNING while the model answers (score card refused), then COMPLETED with every cell', async () => {
    opened = new Promise((resolve) => {
      release = resolve;
    });
    const run = await service.call('POST', `/reports/${reportId}/run`, { body: {} });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body).toEqual({ success: true, report_id: reportId });

    const running = await getReport(reportId);
    expect(running.status).toBe('RUNNING');
    expect((await score(reportId)).body.score).toMatchObject({ score_type: 'none', overall_score: null });
    // (The run writes meanwhile, so `rejected` cannot count items: the card is read back instead.)
    const refused = await scoreCard(reportId, { column_names: ['judge'] });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: 'report_running' });
    const page = await rowsPage(reportId, 1, 1);
    expect(page.body.rows[0].slice(3).map((cell: EvalCell) => cell.status)).toEqual(
      EVAL_COLUMNS.map(() => expect.stringMatching(/^(QUEUED|RUNNING)$/)),
    );
    release();

    const done = await completed(reportId);
    expect(done.stats.status_counts).toEqual({ COMPLETED: 6 * ROWS - 5, FAILED: 5, QUEUED: 0, RUNNING: 0 });
    const scored = done.report_columns.filter(
      (column: { is_part_of_score: boolean }) => column.is_part_of_score,
    );
    expect(scored.map((column: { name: string }) => column.name)).toEqual(['v1 matches', 'v2 mentions']);
  });

  it('scores the two marked columns (COMPARE 80, CONTAINS 100)', async () => {
    const answer = await score(reportId);
    expect(answer.status).toBe(200);
    expect(answer.body.score).toEqual({
      overall_score: 90,
      score_type: 'multi_column',
      has_custom_scoring: false,
      details: {
        columns: [
          { column_name: 'v1 matches', score: 80, score_type: 'boolean', num_skipped: 0 },
          { column_name: 'v2 mentions', score: 100, score_type: 'boolean', num_skipped: 0 },
        ],
      },
    });
  });

  it('pages the rows: dataset cells, then every evaluation cell with its status, value and error', async () => {
    const seen: unknown[][] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await rowsPage(reportId, page, 20);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({
        success: true,
        columns: [...DATASET_COLUMNS, ...EVAL_COLUMNS],
        page,
        per_page: 20,
        pages: 3,
        total: ROWS,
      });
      seen.push(...answer.body.rows);
    }
    expect(seen).toHaveLength(ROWS);
    seen.forEach((row, i) => {
      expect(row.slice(0, 3).map((cell) => (cell as { value: unknown }).value)).toEqual([
        `[[stub:reply=${v1Wrong(i) ? 'no idea' : `answer ${i}`}]] question ${i}`,
        `answer ${i}`,
        `[[stub:reply=${judgeSaysNo(i) ? 'false' : 'true'}]] the answer is on topic`,
      ]);
      expect(row.slice(3), `row ${i}`).toEqual(expectedCells(i).map((cell) => ({ type: 'eval', ...cell })));
    });
    // A PROMPT_TEMPLATE cell's log is the very call of that row and column.
    const cell = seen[7]?.[3] as EvalCell & { request_log_id: number };
    const log = await service.call('GET', `/api/public/v2/requests/${cell.request_log_id}`);
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).toContain('question 7');
    expect(log.body.metadata).toMatchObject({ report_id: String(reportId), report_column_name: 'v1' });
    expect(new Set(seen.map((row) => (row[3] as { request_log_id: number }).request_log_id)).size).toBe(ROWS);
    // Past the last page: no rows, the same totals.
    expect((await rowsPage(reportId, 4, 20)).body).toMatchObject({ rows: [], pages: 3, total: ROWS });
    // workspace_id may only name the key's own workspace.
    const own = await service.call('GET', `/api/public/v2/evaluations/${reportId}/rows`, {
      query: { workspace_id: service.workspaceId, per_page: 1 },
    });
    expect(own.body).toMatchObject({ total: ROWS, rows: [expect.any(Array)] });
    const theirs = await service.rejected('GET', `/api/public/v2/evaluations/${reportId}/rows`, {
      query: { workspace_id: service.workspaceId + 1 },
    });
    expect(theirs).toMatchObject({ status: 400, body: { message: 'Invalid workspace_id' } });
    // per_page is 1..100.
    expect(
      (
        await service.rejected('GET', `/api/public/v2/evaluations/${reportId}/rows`, {
          query: { per_page: 101 },
        })
      ).status,
    ).toBe(422);
    expect(
      (await service.rejected('GET', `/api/public/v2/evaluations/${reportId}/rows`, { query: { page: 0 } }))
        .status,
    ).toBe(422);
  });

  it('changes the score card: one column, then custom code, and a code that fails', async () => {
    const single = await scoreCard(reportId, { column_names: ['judge'] });
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(single.body).toEqual({
      success: true,
      report: { id: reportId, name: expect.any(String), tags: [], score_configuration: null },
    });
    // Judge says false on every fourth row: 13 of 50.
    expect((await score(reportId)).body.score).toEqual({
      overall_score: 74,
      score_type: 'single_column',
      has_custom_scoring: false,
      details: { column_name: 'judge', score: 74, score_type: 'boolean', num_skipped: 0 },
    });
    const columns = (await getReport(reportId)).report_columns as {
      name: string;
      is_part_of_score: boolean;
    }[];
    expect(columns.filter((column) => column.is_part_of_score).map((column) => column.name)).toEqual([
      'judge',
    ]);

    // Failed cells are skipped: 5 of the code column's 50.
    await scoreCard(reportId, { column_names: ['same answer'] });
    expect((await score(reportId)).body.score.details).toEqual({
      column_name: 'same answer',
      score: (35 / 45) * 100,
      score_type: 'boolean',
      num_skipped: 5,
    });

    const code = `
      const better = data.filter((row) => row['v2 mentions'] === true && row['v1 matches'] === false);
      const failed = data.filter((row) => row['same answer'] === null).length;
      return { score: better.length / data.length * 100, matrix: [['v2 better', better.length], ['failed', failed]] };
    `;
    const custom = await scoreCard(reportId, { column_names: ['v1 matches', 'v2 mentions'], code });
    expect(custom.status, JSON.stringify(custom.body)).toBe(200);
    expect(custom.body.report.score_configuration).toEqual({ code, code_language: 'JAVASCRIPT' });
    expect((await score(reportId)).body.score).toEqual({
      overall_score: 20,
      score_type: 'custom',
      has_custom_scoring: true,
      details: {
        matrix: [
          ['v2 better', 10],
          ['failed', 5],
        ],
        configuration: { code, code_language: 'JAVASCRIPT' },
      },
    });

    const broken = await scoreCard(reportId, { column_names: [], code: 'return { score: "high" }' });
    expect(broken.status).toBe(200);
    expect((await score(reportId)).body.score).toMatchObject({
      overall_score: null,
      score_type: 'custom',
      details: { error: expect.stringContaining('"score"') },
    });
    expect((await getReport(reportId)).report.score_calculation_error).toEqual(
      expect.stringContaining('"score"'),
    );

    // Cleared code (absent): back to the built-in score of the named columns.
    await scoreCard(reportId, { column_names: ['v1 matches'] });
    expect((await score(reportId)).body.score).toMatchObject({
      overall_score: 80,
      score_type: 'single_column',
    });
  });

  it('refuses a bad score card (unknown column, Python, missing names) and writes nothing', async () => {
    const unknown = await service.rejected('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: ['judge', 'nope'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('"nope"');
    const python = await service.rejected('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: [], code: 'return {"score": 1}', code_language: 'PYTHON' },
    });
    expect(python.status).toBe(400);
    const missing = await service.rejected('PATCH', `/reports/${reportId}/score-card`, { body: {} });
    expect(missing.status).toBe(422);
  });

  it('needs reports read for the score and rows, reports edit for the score card', async () => {
    const reader = await service.keyWithPermissions({ reports: 'read' });
    expect((await score(reportId, reader)).status).toBe(200);
    expect((await rowsPage(reportId, 1, 5, reader)).status).toBe(200);
    const edit = await service.rejected('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: [] },
      key: reader,
    });
    expect(edit.status).toBe(403);
    const stranger = await service.keyWithPermissions({ datasets: 'read' });
    for (const route of [`/reports/${reportId}/score`, `/api/public/v2/evaluations/${reportId}/rows`]) {
      expect((await service.rejected('GET', route, { key: stranger })).status, route).toBe(403);
    }
  });

  it('renames and retags it', async () => {
    const renamed = await service.call('PATCH', `/reports/${reportId}/rename`, {
      body: { name: 'Prompt v1 vs v2', tags: ['nightly', 'support'] },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({
      success: true,
      report: { id: reportId, name: 'Prompt v1 vs v2', tags: ['nightly', 'support'] },
    });
    const cleared = await service.call('PATCH', `/reports/${reportId}/rename`, { body: { tags: [] } });
    expect(cleared.body.report).toMatchObject({ id: reportId, name: 'Prompt v1 vs v2', tags: [] });
    expect((await getReport(reportId)).report).toMatchObject({ name: 'Prompt v1 vs v2' });
    expect((await service.rejected('PATCH', `/reports/${reportId}/rename`, { body: {} })).status).toBe(422);
  });

  it('keeps external ids: idempotent, 409 on another report; 404 for another workspace or once deleted', async () => {
    const path = `/reports/${reportId}/external-ids`;
    const mapping = { source: 'jira', external_id: `EVAL-${reportId}` };
    const first = await service.call('POST', path, { body: mapping });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await service.call('POST', path, { body: mapping });
    expect(again.status).toBe(201);
    const listed = await service.call('GET', path);
    expect(listed.body.external_ids).toEqual(
      expect.arrayContaining([mapping, expect.objectContaining({ source: 'ci' })]),
    );

    const { groupId } = await datasetVersion();
    const other = await service.call('POST', '/reports', { body: { dataset_group_id: groupId } });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const taken = await service.rejected('POST', `/reports/${other.body.report_id}/external-ids`, {
      body: mapping,
    });
    expect(taken.status).toBe(409);

    for (const [method, route] of [
      ['POST', path],
      ['GET', path],
      ['GET', `/reports/${reportId}/score`],
      ['PATCH', `/reports/${reportId}/score-card`],
      ['GET', `/api/public/v2/evaluations/${reportId}/rows`],
    ] as const) {
      const body = method === 'POST' ? mapping : method === 'PATCH' ? { column_names: [] } : undefined;
      const answer = await service.rejected(method, route, { body, key: otherKey });
      expect(answer.status, `${method} ${route}`).toBe(404);
    }

    // A deleted report has no score, card or rows either.
    const otherId = other.body.report_id as number;
    expect((await service.call('DELETE', `/reports/${otherId}`)).status).toBe(200);
    for (const [method, route] of [
      ['GET', `/reports/${otherId}/score`],
      ['PATCH', `/reports/${otherId}/score-card`],
      ['GET', `/api/public/v2/evaluations/${otherId}/rows`],
    ] as const) {
      const body = method === 'PATCH' ? { column_names: [] } : undefined;
      expect((await service.rejected(method, route, { body })).status, `${method} ${route}`).toBe(404);
    }
  });
});

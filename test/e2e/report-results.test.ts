import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { uniqueName } from '#test/support/prompts.ts';
import { reportOver } from '#test/support/reports.ts';

/**
 * The results of a report at their edges, through the local gateway: scores the score code or the
 * values of a numeric column make that a table item cannot hold as such (numbers past what DynamoDB
 * keeps, a big matrix), and pages of rows whose cells are too big for one answer.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

/** A report over a published version of `csv` with these columns; its id. */
async function report(csv: string, columns: unknown[], extra: Record<string, unknown> = {}) {
  const body = { name: uniqueName('results'), columns, ...extra };
  return (await reportOver(service, csv, body, { fileName: 'rows.csv' })).report_id;
}

/** Runs the report in place and waits for the queues: its GET answer. */
async function run(reportId: number) {
  const started = await service.call('POST', `/reports/${reportId}/run`, { body: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await service.messaging.idle();
  return (await service.call('GET', `/reports/${reportId}`)).body;
}

const score = async (reportId: number) =>
  (await service.call('GET', `/reports/${reportId}/score`)).body.score;
const code = (source: string) => ({
  column_type: 'CODE_EXECUTION',
  name: 'n',
  configuration: { language: 'JAVASCRIPT', code: source },
  is_part_of_score: true,
});
const CSV = 'question\nq1\nq2\n';

describe('scores a table item cannot hold as such', () => {
  it('completes a run whose numeric column averages past what DynamoDB numbers hold', async () => {
    const reportId = await report(CSV, [code('return 1e200')]);
    const done = await run(reportId);
    expect(done.status).toBe('COMPLETED');
    expect(await score(reportId)).toEqual({
      overall_score: 1e200,
      score_type: 'single_column',
      has_custom_scoring: false,
      details: { column_name: 'n', score: 1e200, score_type: 'numeric', num_skipped: 0 },
    });
    expect(done.report_columns[0].score).toBe(1e200);
    const finished = service.messaging.events
      .map((event) => event.detail as { event_type: string; details: { report_id?: number } })
      .filter((detail) => detail.event_type === 'report_finished' && detail.details.report_id === reportId);
    expect(finished).toMatchObject([{ details: { overall_score: 1e200, status: 'COMPLETED' } }]);
  });

  it('keeps any JSON number or nesting the score code returns in its matrix', async () => {
    // Deeper than the 32 levels a DynamoDB map may nest.
    let deep: unknown = 'deep';
    for (let level = 0; level < 40; level++) deep = [deep];
    const matrix = [[1e-200, 2 ** 60], deep];
    const scoreCode = `return { score: 1e-7, matrix: ${JSON.stringify(matrix)} }`;
    const reportId = await report(CSV, [code('return 1')], { score_configuration: { code: scoreCode } });
    const done = await run(reportId);
    expect(done.status).toBe('COMPLETED');
    expect(done.report.score_matrix).toEqual(matrix);
    expect(await score(reportId)).toMatchObject({
      overall_score: 1e-7,
      score_type: 'custom',
      details: { matrix },
    });

    const card = await service.call('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: [], code: 'return { score: 50, matrix: [1e300] }' },
    });
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    expect(await score(reportId)).toMatchObject({ overall_score: 50, details: { matrix: [1e300] } });
  });

  it('answers a matrix too big to keep as the score error, for the run and for the score card', async () => {
    const big = 'return { score: 50, matrix: [["a".repeat(900000)]] }';
    const reportId = await report(CSV, [code('return 1')], { score_configuration: { code: big } });
    const done = await run(reportId);
    expect(done.status).toBe('COMPLETED');
    expect(done.report.score_calculation_error).toMatch(/matrix.*too large/);
    expect(await score(reportId)).toMatchObject({
      overall_score: null,
      details: { error: expect.stringMatching(/matrix.*too large/) },
    });

    const fine = await service.call('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: [], code: 'return { score: 60 }' },
    });
    expect(fine.status).toBe(200);
    expect((await score(reportId)).overall_score).toBe(60);
    const card = await service.call('PATCH', `/reports/${reportId}/score-card`, {
      body: { column_names: [], code: big },
    });
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    expect(await score(reportId)).toMatchObject({
      overall_score: null,
      details: { error: expect.stringMatching(/matrix.*too large/) },
    });
  });
});

describe('the rows of an evaluation', () => {
  const rowsPage = (reportId: number, query: Record<string, number>) =>
    service.call('GET', `/api/public/v2/evaluations/${reportId}/rows`, { query });

  it('answers a page whose cells pass what one answer holds: the largest values left out, each with its size', async () => {
    // 10 rows, each cell 450,000 quotes: 900 KB of JSON (twice that once escaped into Lambda's answer).
    const csv = `question\n${Array.from({ length: 10 }, (_, i) => `q${i}`).join('\n')}\n`;
    const reportId = await report(csv, [
      { ...code(`return '"'.repeat(450000) + data.question`), is_part_of_score: false },
      { column_type: 'CONTAINS', name: 'has q', configuration: { source: 'question', value: 'q' } },
    ]);
    expect((await run(reportId)).status).toBe('COMPLETED');

    const page = await rowsPage(reportId, { per_page: 10 });
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    expect(page.body).toMatchObject({ total: 10, pages: 1, columns: ['question', 'n', 'has q'] });
    const cells = page.body.rows.map((row: { value: unknown; value_omitted_bytes?: number }[]) => row[1]);
    const kept = cells.filter((cell: { value: unknown }) => cell.value !== null);
    const left = cells.filter((cell: { value: unknown }) => cell.value === null);
    expect(kept.length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    for (const cell of kept) expect(cell.value).toHaveLength(450002);
    // About the JSON of '"' x 450000 + 'qN' (each quote escaped once): 900,004 bytes, or the stored
    // object's size for a value held in S3 that the page did not load.
    expect(left).toEqual(
      left.map(() => ({
        type: 'eval',
        status: 'COMPLETED',
        value: null,
        error_message: null,
        value_omitted_bytes: expect.any(Number),
      })),
    );
    for (const cell of left) {
      expect(cell.value_omitted_bytes).toBeGreaterThanOrEqual(900_004);
      expect(cell.value_omitted_bytes).toBeLessThan(900_004 + 32);
    }
    // The small cells are all there; a page of one row holds its whole cell.
    page.body.rows.forEach((row: { value: unknown }[], i: number) => {
      expect(row[0]).toEqual({ type: 'dataset', value: `q${i}` });
      expect(row[2]).toMatchObject({ status: 'COMPLETED', value: true });
    });
    const one = await rowsPage(reportId, { page: 10, per_page: 1 });
    expect(one.body.rows[0][1].value).toBe(`${'"'.repeat(450000)}q9`);
  });
});

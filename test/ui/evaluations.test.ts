import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { chat, publish } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';
import { compareColumn, createReport, publishedDataset } from '#test/support/reports.ts';
import { checkA11y, describeUi, signIn, type UiPage } from './support/browser.ts';

/**
 * The Evaluations screen: reports seeded through the public API over a dataset version made from a
 * file, with PROMPT_TEMPLATE columns answered by the loopback LLM stub (it answers the user message's
 * text: version 1 of the template sends the question, version 2 "Answer: <question>", so version 1
 * matches the expected column on 2 of 3 rows and version 2 on none). The stub is reached through a gate
 * that holds the calls while the test looks at a run in progress.
 */
const PROMPT = 'eval-answerer';
const CSV = 'question,expected\nq1,q1\nq2,q2\nq3,other\n';
const ENV_NAMES = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] as const;

const promptColumn = (name: string, version: number) => ({
  column_type: 'PROMPT_TEMPLATE',
  name,
  configuration: { template: { name: PROMPT, version_number: version } },
});

describeUi('dashboard evaluations', (ui) => {
  let stub: LlmStub;
  let gate: Receiver;
  let release: () => void = () => undefined;
  let opened: Promise<void> = Promise.resolve();
  let groupId = 0;
  const reports = { v1: 0, v2: 0 };

  beforeAll(async () => {
    stub = await startLlmStub();
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
        .catch(() => response.writeHead(502).end());
    });
    process.env.OPENAI_API_KEY = 'sk-ui-evaluations-0001';
    process.env.OPENAI_BASE_URL = `${gate.url}/v1`;
    await publish(ui.service, PROMPT, chat('You answer.', '{question}'), { release_labels: ['prod'] });
    await publish(ui.service, PROMPT, chat('You answer.', 'Answer: {question}'));
    ({ groupId } = await publishedDataset(ui.service, CSV, { name: 'eval questions' }));
    for (const [key, version] of [
      ['v1', 1],
      ['v2', 2],
    ] as const) {
      const created = await createReport(ui.service, {
        dataset_group_id: groupId,
        name: `answerer ${key}`,
        columns: [
          promptColumn('answer', version),
          { ...compareColumn('matches', ['answer', 'expected']), is_part_of_score: true },
        ],
      });
      reports[key] = created.report_id;
    }
  });
  afterAll(async () => {
    release();
    for (const name of ENV_NAMES) delete process.env[name];
    await Promise.all([stub?.close(), gate?.close()]);
  });

  const main = (page: UiPage) => page.getByRole('main');
  async function open(path: string, key = ui.service.apiKey): Promise<UiPage> {
    const page = await ui.newPage();
    await page.goto(path);
    await signIn(page, key);
    return page;
  }
  const reportStatus = async (id: number) =>
    (await ui.service.call('GET', `/reports/${id}`)).body.status as string;

  it('runs a report, watching its rows done until it completes; then stops reading it', async () => {
    const page = await ui.newPage();
    await page.clock.install();
    await page.goto(`/ui/evaluations?report=${reports.v1}`);
    await signIn(page, ui.service.apiKey);
    await main(page).getByRole('heading', { name: 'answerer v1' }).waitFor();
    await main(page).getByText('Not run yet.').waitFor();
    // The dataset by the name its user gave it, as in the list.
    await expect
      .poll(() => main(page).locator('.evaluations-facts').textContent())
      .toContain('eval questions v1');

    // The LLM calls wait at the gate: the run shows 0 of 3 rows done.
    opened = new Promise((resolve) => {
      release = resolve;
    });
    await main(page).getByRole('button', { name: 'Run', exact: true }).click();
    await main(page).getByText('Running: 0 / 3 rows').waitFor();
    expect(await main(page).locator('progress').getAttribute('max')).toBe('3');
    expect(await reportStatus(reports.v1)).toBe('RUNNING');
    expect(await checkA11y(page, 'evaluations-running')).toEqual([]);

    release();
    await main(page).getByText('Last run: 3 of 3 rows done.').waitFor({ timeout: 60_000 });
    await expect.poll(() => main(page).locator('.evaluations-score-value').textContent()).toBe('66.7');
    const grid = main(page).getByRole('region', { name: 'Rows: 3' });
    // Three rows make a short grid, not a window of twenty with an empty box below them.
    expect((await grid.boundingBox())?.height).toBeLessThan(200);
    expect(await grid.getByRole('columnheader').allTextContents()).toEqual([
      '#',
      'question',
      'expected',
      'answer PROMPT_TEMPLATE',
      'matches COMPARE',
    ]);
    await expect
      .poll(() => grid.locator('tbody tr.evaluations-row').nth(2).locator('td').allTextContents())
      .toEqual(['3', 'q3', 'other', 'COMPLETEDq3log', 'COMPLETEDfalse']);

    // Done: no more reads of the report, however long the page stays open.
    const reads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === `/reports/${reports.v1}`) reads.push(request.url());
    });
    await page.clock.runFor(120_000);
    await page.evaluate(() => undefined);
    expect(reads).toEqual([]);
    expect(await checkA11y(page, 'evaluations-report')).toEqual([]);

    // A PROMPT_TEMPLATE cell links to exactly the request log it produced, open in Requests among the
    // run's logs of that column.
    const rows = await ui.service.call('GET', `/api/public/v2/evaluations/${reports.v1}/rows`);
    const logId = rows.body.rows[1][2].request_log_id;
    expect(logId).toEqual(expect.any(Number));
    await grid.getByRole('link', { name: 'Request log of answer' }).nth(1).click();
    await page.waitForURL(/\/ui\/requests\?/);
    expect(new URL(page.url()).searchParams.get('sel')).toBe(String(logId));
    await expect
      .poll(() => main(page).locator('.requests-table tbody tr').count(), { timeout: 20_000 })
      .toBe(3);
    expect(await main(page).locator('.requests-table tbody tr[aria-current="true"]').count()).toBe(1);
    await expect.poll(() => main(page).locator('.request-detail').textContent()).toContain('q2');
    expect(await main(page).locator('.request-detail').textContent()).not.toContain('q1');
    await page.close();
  });

  it('lists the reports with status, score, dataset version and tags; renames and tags one; searches by name', async () => {
    opened = Promise.resolve();
    await ui.service.call('POST', `/reports/${reports.v2}/run`, { body: {} });
    await expect.poll(() => reportStatus(reports.v2), { timeout: 60_000 }).toBe('COMPLETED');

    const page = await open('/ui/evaluations');
    const list = main(page).locator('.evaluations-list');
    const rowOf = (name: string) =>
      list
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) })
        .getByRole('cell');
    await expect
      .poll(() => rowOf('answerer v1').allTextContents())
      .toEqual(expect.arrayContaining(['Completed', '66.7', 'eval questions v1']));
    expect(await rowOf('answerer v2').allTextContents()).toEqual(
      expect.arrayContaining(['Completed', '0', 'eval questions v1']),
    );

    await list.getByRole('button', { name: 'answerer v2' }).click();
    expect(new URL(page.url()).searchParams.get('report')).toBe(String(reports.v2));
    await main(page).getByRole('heading', { name: 'answerer v2' }).waitFor();
    await main(page).getByLabel('Name', { exact: true }).fill('answerer v2 (terse)');
    await main(page).getByLabel('Tags (comma-separated)').fill('nightly, candidate');
    await main(page).getByRole('button', { name: 'Save name and tags' }).click();
    await main(page).getByRole('heading', { name: 'answerer v2 (terse)' }).waitFor();
    await expect.poll(() => rowOf('answerer v2 (terse)').allTextContents()).toContain('nightly, candidate');
    const stored = (await ui.service.call('GET', `/reports/${reports.v2}`)).body.report;
    expect([stored.name, stored.tags]).toEqual(['answerer v2 (terse)', ['nightly', 'candidate']]);

    await main(page).getByLabel('Search by name').fill('terse');
    await expect.poll(() => list.getByRole('rowheader').allTextContents()).toEqual(['answerer v2 (terse)']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('terse');
    await page.reload();
    await main(page).getByRole('heading', { name: 'answerer v2 (terse)' }).waitFor();
    expect(await list.getByRole('rowheader').allTextContents()).toEqual(['answerer v2 (terse)']);
    expect(await checkA11y(page, 'evaluations-list')).toEqual([]);

    // A key that may only read reports sees no edit action.
    const reader = await ui.service.keyWithPermissions({ reports: 'read', datasets: 'read' });
    const readOnly = await open(`/ui/evaluations?report=${reports.v2}`, reader);
    await main(readOnly).getByRole('heading', { name: 'answerer v2 (terse)' }).waitFor();
    expect(
      await main(readOnly)
        .getByRole('button', { name: /Run|Save name|New report/ })
        .count(),
    ).toBe(0);
    await readOnly.close();
    await page.close();
  });

  it('compares two reports row by row: score deltas and changed cells', async () => {
    const page = await open(`/ui/evaluations?report=${reports.v1}`);
    await main(page).getByRole('heading', { name: 'answerer v1' }).waitFor();
    await main(page).getByLabel('Compare with').selectOption({ label: 'answerer v2 (terse)' });
    await main(page).getByRole('button', { name: 'Compare', exact: true }).click();
    expect(new URL(page.url()).searchParams.get('compare')).toBe(`${reports.v1}..${reports.v2}`);
    await main(page)
      .getByRole('heading', { name: 'Compare “answerer v1” with “answerer v2 (terse)”' })
      .waitFor();

    const deltas = main(page).locator('.evaluations-deltas');
    const deltaRow = (name: string) =>
      deltas
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
        .getByRole('cell');
    await expect.poll(() => deltaRow('Score').allTextContents()).toEqual(['66.7', '0', '−66.7']);
    expect(await deltaRow('matches').allTextContents()).toEqual(['66.7', '0', '−66.7']);

    const grid = main(page).getByRole('region', { name: 'Rows compared: 3' });
    await expect.poll(() => grid.locator('td.evaluations-changed').count()).toBe(5);
    const first = grid.locator('tbody tr.evaluations-row').first();
    expect(await first.locator('td.evaluations-changed').allTextContents()).toEqual([
      'q1 → Answer: q1',
      'true → false',
    ]);
    // The dataset's own cells are the same on both sides.
    expect(await first.locator('td').nth(1).getAttribute('class')).toBeNull();
    expect(await checkA11y(page, 'evaluations-compare')).toEqual([]);

    await page.reload();
    await deltas.waitFor();
    await page.getByRole('button', { name: 'Close the comparison' }).click();
    await main(page).getByRole('heading', { name: 'answerer v1' }).waitFor();
    await page.goBack();
    await deltas.waitFor();
    await page.close();
  });

  it("creates a report from a dataset version, showing the API's refusal next to the form", async () => {
    const page = await open('/ui/evaluations');
    await main(page).getByRole('button', { name: 'New report' }).click();
    await main(page).getByRole('heading', { name: 'New report' }).waitFor();
    await main(page).getByText('Dataset columns: question, expected').waitFor();
    await main(page).getByLabel('Name (optional)').fill('made in the browser');
    await main(page).getByLabel('Column type').selectOption('COMPARE');
    await main(page).getByRole('button', { name: 'Add column' }).click();
    // The form is generated from COMPARE's schema: its `sources` tuple names columns (two selects),
    // `comparison_type` is an object (its JSON).
    const compare = main(page).getByRole('group', { name: 'Configuration of compare 1' });
    expect(await compare.getByLabel('sources 1').inputValue()).toBe('question');
    expect(await compare.getByLabel('sources 2').inputValue()).toBe('expected');
    expect(JSON.parse(await compare.getByLabel('comparison_type (JSON)').inputValue())).toEqual({
      type: 'STRING',
    });
    await main(page).getByLabel('Column name').fill('same');
    const same = main(page).getByRole('group', { name: 'Configuration of same' });
    await same.getByLabel('sources 2').selectOption('question');
    await same.getByLabel('comparison_type (JSON)').fill('{"type": "STRING", "json_path": "$.a"}');
    page.expectConsoleError(/status of 400/);
    await main(page).getByRole('button', { name: 'Create the report' }).click();
    await main(page).getByRole('alert').filter({ hasText: 'json_path' }).waitFor();
    expect(await main(page).getByRole('alert').textContent()).toContain(
      'invalid configuration for column "same" (COMPARE): comparison_type.json_path: json_path applies to comparison_type JSON only',
    );
    expect(await checkA11y(page, 'evaluations-create')).toEqual([]);

    await same.getByLabel('comparison_type (JSON)').fill('{"type": "STRING"}');
    await main(page).getByLabel('Part of the score').check();
    // A COUNT column: its `source` may read the earlier column, its `type` is an enum.
    await main(page).getByLabel('Column type').selectOption('COUNT');
    await main(page).getByRole('button', { name: 'Add column' }).click();
    const count = main(page).getByRole('group', { name: 'Configuration of count 2' });
    expect(await count.getByLabel('source').locator('option').allTextContents()).toEqual([
      'question',
      'expected',
      'same',
    ]);
    await count.getByLabel('source').selectOption('same');
    await count.getByLabel('type').selectOption('chars');
    await main(page).getByRole('button', { name: 'Create the report' }).click();
    await main(page).getByRole('heading', { name: 'made in the browser' }).waitFor();
    const id = Number(new URL(page.url()).searchParams.get('report'));
    const created = (await ui.service.call('GET', `/reports/${id}`)).body;
    expect(
      created.report_columns.map(
        (column: { name: string; is_part_of_score: boolean; configuration: unknown }) => [
          column.name,
          column.is_part_of_score,
          column.configuration,
        ],
      ),
    ).toEqual([
      ['same', true, { sources: ['question', 'question'], comparison_type: { type: 'STRING' } }],
      ['count 2', false, { source: 'same', type: 'chars' }],
    ]);
    await page.close();
  });

  it("shows the evaluation score of both versions in a label move's review", async () => {
    const page = await open(`/ui/prompts/${PROMPT}?move=prod&to=2`);
    await main(page)
      .getByRole('heading', { name: 'Review: move “prod” from version 1 to version 2' })
      .waitFor();
    const evidence = main(page).locator('.prompts-evidence');
    const row = (name: string) =>
      evidence
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) })
        .getByRole('cell');
    await expect.poll(() => row('Version 1 (now)').allTextContents()).toEqual(['66.7', 'answerer v1']);
    expect(await row('Version 2 (target)').allTextContents()).toEqual(['0', 'answerer v2 (terse)']);
    expect(await checkA11y(page, 'evaluations-release-review')).toEqual([]);
    await evidence.getByRole('link', { name: 'answerer v2 (terse)' }).click();
    await main(page).getByRole('heading', { name: 'answerer v2 (terse)' }).waitFor();
    expect(new URL(page.url()).searchParams.get('report')).toBe(String(reports.v2));
    await page.close();
  });
});

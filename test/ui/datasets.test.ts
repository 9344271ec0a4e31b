import { expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, signIn, type UiContext } from './support/browser.ts';

const BIG_ROWS = 10_000;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

async function createGroup(ui: UiContext, name: string): Promise<{ groupId: number; draftId: number }> {
  const answer = await ui.service.call('POST', '/api/public/v2/dataset-groups', { body: { name } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { groupId: answer.body.dataset_group.id, draftId: answer.body.dataset.id };
}

async function versionOf(ui: UiContext, datasetId: number): Promise<number> {
  const answer = await ui.service.call('GET', `/api/public/v2/datasets/${datasetId}`);
  return answer.status === 200 ? (answer.body.dataset.version_number as number) : Number.NaN;
}

describeUi('dashboard datasets', (ui) => {
  it('makes a version from the Requests filter and shows it appear, rows as text', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          request_start_time: minutesAgo(30 + i),
          request_end_time: minutesAgo(29.9 + i),
          tags: [i % 2 === 0 ? 'keep' : 'drop'],
          input: {
            type: 'chat',
            messages: [
              { role: 'user', content: [{ type: 'text', text: `<img src=x onerror=alert(${i})>` }] },
            ],
          },
        }),
      });
      expect(answer.status).toBe(201);
    }
    const page = await ui.newPage();
    // The Requests filter (tags contain "keep") as it lives in the URL.
    const filters = JSON.stringify([{ field: 'tags', operator: 'contains', value: 'keep' }]);
    await page.goto(`/ui/requests?f=${encodeURIComponent(filters)}`);
    await signIn(page, ui.service.apiKey);
    await page.getByRole('button', { name: 'New dataset version from this filter' }).click();
    await page.getByRole('heading', { name: 'New version from the Requests filter' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/datasets');
    expect(await page.locator('.datasets-from-filter').textContent()).toContain('keep');
    await page.getByLabel("New group's name").fill('from traffic');
    await page.getByRole('button', { name: 'Create the version' }).click();

    // The job's state until the version appears, then its rows.
    await page.getByText(/from traffic: version 1 is ready \(2 rows\)/).waitFor();
    await page.getByRole('button', { name: /^Version 1/ }).waitFor();
    await expect.poll(() => page.locator('.datasets-grid tr.datasets-row').count()).toBe(2);
    await page.locator('.datasets-grid').getByText('onerror=alert(0)').first().waitFor();
    const gridText = await page.locator('.datasets-grid').textContent();
    expect(gridText).toContain('<img src=x onerror=alert(0)>');
    expect(await page.locator('.datasets-grid img').count()).toBe(0);
    expect(await checkA11y(page, 'datasets-from-filter')).toEqual([]);

    // Reload keeps the group and the version.
    const url = new URL(page.url());
    expect(url.searchParams.get('group')).toBeTruthy();
    expect(url.searchParams.get('version')).toBeTruthy();
    await page.reload();
    await page.getByRole('button', { name: /^Version 1/, pressed: true }).waitFor();
  });

  it('scrolls 10,000 rows in a windowed grid; a draft is saved as a version', async () => {
    const { groupId, draftId } = await createGroup(ui, 'big file');
    const rows = Array.from({ length: BIG_ROWS }, (_, i) => ({
      question: `question ${i}`,
      answer: `answer ${i}`,
    }));
    const answer = await ui.service.call('POST', '/api/public/v2/dataset-versions/from-file', {
      body: {
        dataset_group_id: groupId,
        file_name: 'big.json',
        file_content_base64: Buffer.from(JSON.stringify(rows)).toString('base64'),
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    await expect.poll(() => versionOf(ui, draftId), { timeout: 60_000, interval: 200 }).toBe(1);

    const page = await ui.newPage();
    await page.goto(`/ui/datasets?group=${groupId}&version=${draftId}`);
    await signIn(page, ui.service.apiKey);
    const started = await page.evaluate(() => performance.now());
    await page.getByRole('cell', { name: 'question 0', exact: true }).waitFor();
    const firstPaint = (await page.evaluate(() => performance.now())) - started;
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(['#', 'question', 'answer']);
    expect(await page.locator('.datasets-row').count()).toBeLessThan(60);

    // Scroll as a wheel would (10 rows a frame, 60 frames), timing each frame (rAF to rAF: render, layout
    // and paint), then jump to the end: the last rows are fetched and shown, the DOM keeps a few dozen rows.
    const frameMs = await page.evaluate(async () => {
      // Runs in the page (DOM types are not the tests'): `globalThis` is the page's window.
      const window = globalThis as any;
      const grid = window.document.querySelector('.datasets-grid');
      const nextFrame = () => new Promise<number>((resolve) => window.requestAnimationFrame(resolve));
      const frames: number[] = [];
      let previous = await nextFrame();
      for (let step = 1; step <= 60; step++) {
        grid.scrollTop = step * 280;
        const now = await nextFrame();
        frames.push(now - previous);
        previous = now;
      }
      grid.scrollTop = grid.scrollHeight;
      frames.sort((a, b) => a - b);
      return { p50: frames[30], p95: frames[57], max: frames[59] };
    });
    await page.getByRole('cell', { name: 'question 9999', exact: true }).waitFor();
    expect(await page.locator('.datasets-row').count()).toBeLessThan(60);
    console.log(
      `datasets grid, ${BIG_ROWS} rows: first paint ${firstPaint.toFixed(0)} ms; scroll frame p50 ${frameMs.p50?.toFixed(1)} ms, p95 ${frameMs.p95?.toFixed(1)} ms, max ${frameMs.max?.toFixed(1)} ms`,
    );

    // A new draft from version 1 (a copy job), then saved as version 2.
    await page.getByRole('button', { name: 'New draft from version 1' }).click();
    await page.getByRole('button', { name: /^Draft/ }).waitFor();
    await page
      .getByText(/big file: version|Building the draft|Starting/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    // The copy job points the draft at version 1's rows; saving before it ends is refused (draft_busy).
    await expect
      .poll(async () => {
        const list = await ui.service.call('GET', '/api/public/v2/datasets', {
          query: { dataset_group_id: groupId },
        });
        return (list.body.datasets as { version_number: number; row_count: number }[]).find(
          (dataset) => dataset.version_number === -1,
        )?.row_count;
      })
      .toBe(BIG_ROWS);
    await page.reload();
    await page.getByRole('button', { name: 'Save the draft as a version' }).click();
    await page.getByRole('button', { name: /^Version 2/, pressed: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Draft/ }).count()).toBe(0);
    expect(await checkA11y(page, 'datasets-grid')).toEqual([]);
  });

  it("shows a failed job's reason", async () => {
    const { groupId, draftId } = await createGroup(ui, 'bad file');
    const answer = await ui.service.call('POST', '/api/public/v2/dataset-versions/from-file', {
      body: {
        dataset_group_id: groupId,
        file_name: 'bad.json',
        file_content_base64: Buffer.from('[1, 2]').toString('base64'),
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const page = await ui.newPage();
    // The removed draft answers 404: the browser logs the failed load.
    page.expectConsoleError(/404/);
    await page.goto(`/ui/datasets?group=${groupId}&job=${draftId}`);
    await signIn(page, ui.service.apiKey);
    await page.getByText(/The job failed and its draft was removed/).waitFor({ timeout: 30_000 });
  });

  it('uploads a file through upload-url: the CSP refuses the storage of another origin (a known gap)', async () => {
    const { groupId } = await createGroup(ui, 'uploaded');
    const page = await ui.newPage();
    await page.goto(`/ui/datasets?group=${groupId}`);
    await signIn(page, ui.service.apiKey);
    await page.getByLabel('Upload a CSV or JSON file').setInputFiles({
      name: 'rows.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('question,answer\nq1,a1\n'),
    });
    await page.getByRole('alert').filter({ hasText: 'The upload failed' }).waitFor();
    expect(ui.takeProblems().join('\n')).toMatch(/connect-src/);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, saveScreenshot, signIn, type UiContext } from './support/browser.ts';
import { describeGridTiming, measureDatasetGrid } from './support/dataset-grid.ts';

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
    const timing = await measureDatasetGrid(page, 'question 0');
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(['#', 'question', 'answer']);
    await page.getByRole('cell', { name: 'question 9999', exact: true }).waitFor();
    expect(await page.locator('.datasets-row').count()).toBeLessThan(60);
    console.log(describeGridTiming(BIG_ROWS, timing));

    // A new draft from version 1 (a copy job), then saved as version 2.
    await page.getByRole('button', { name: 'New draft from version 1' }).click();
    await page.getByRole('button', { name: /^Draft/ }).waitFor();
    await page
      .getByText(/big file: the draft is ready|Running: building the draft|Starting/)
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

  it("shows a failed job's state, then its reason", async () => {
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
    await page.goto(`/ui/datasets?group=${groupId}&job=${draftId}`);
    await signIn(page, ui.service.apiKey);
    await page
      .getByRole('status')
      .getByText(/The job building bad file failed: Row 1 .*not an object.*\(its draft was removed\)/)
      .waitFor({ timeout: 30_000 });
  });

  it('uploads a 6 MB CSV straight to the bucket with its progress, the version appears; a bad file shows why it failed', async () => {
    const { groupId } = await createGroup(ui, 'uploaded');
    const page = await ui.newPage();
    const storage = new URL(ui.service.s3Endpoint).origin;
    const storageRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin === storage) storageRequests.push(request.method());
    });
    await page.goto(`/ui/datasets?group=${groupId}`);
    await signIn(page, ui.service.apiKey);
    const input = page.getByLabel(/Upload a CSV or JSON file/);
    await input.waitFor();

    // An empty file: refused in the page.
    await input.setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.alloc(0) });
    await page.getByRole('alert').filter({ hasText: 'empty.csv is empty' }).waitFor();

    // A 6 MB CSV (more than a request body carries) on an 8 MB/s uplink: the bar shows values between
    // empty and full while it goes to the presigned URL. Long rows keep the job's work small.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 8 * 1024 * 1024,
    });
    await page.evaluate(() => {
      // Runs in the page: samples the progress bar every 20 ms.
      const window = globalThis as any;
      window.progressSeen = [];
      window.setInterval(() => {
        const bar = window.document.querySelector('progress');
        if (bar) window.progressSeen.push(bar.value);
      }, 20);
    });
    const csv = ['question,answer'];
    let bytes = 0;
    while (bytes < 6 * 1024 * 1024) {
      const line = `q${csv.length},${'a'.repeat(4000)}`;
      csv.push(line);
      bytes += line.length + 1;
    }
    const rows = csv.length - 1;
    const file = Buffer.from(`${csv.join('\n')}\n`);
    expect(file.length).toBeGreaterThan(6 * 1024 * 1024);
    // From a file on disk: the browser reads it itself (a buffer would cross the protocol in base64).
    const path = join(mkdtempSync(join(tmpdir(), 'upload-')), 'rows.csv');
    writeFileSync(path, file);
    await input.setInputFiles(path);
    await page.getByRole('progressbar', { name: 'Upload progress' }).waitFor();
    await saveScreenshot(page, 'datasets-upload-progress');
    await page
      .getByText(`uploaded: version 1 is ready (${rows.toLocaleString('en-US')} rows)`)
      .waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /^Version 1/, pressed: true }).waitFor();
    const seen = (await page.evaluate(() => (globalThis as any).progressSeen)) as number[];
    expect(
      seen.some((value) => value > 0 && value < 1),
      JSON.stringify(seen),
    ).toBe(true);
    // The bytes went to the bucket's presigned URL, not through the API.
    expect(storageRequests.filter((method) => method !== 'OPTIONS')).toEqual(['PUT']);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });

    await input.setInputFiles({
      name: 'bad.json',
      mimeType: 'application/json',
      buffer: Buffer.from('[1, 2]'),
    });
    await page
      .getByRole('status')
      .getByText(/The job building uploaded failed: Row 1 .*not an object/)
      .waitFor({ timeout: 30_000 });
    expect(await checkA11y(page, 'datasets-upload')).toEqual([]);

    // The bucket refuses the PUT (this computer's clock is off): the page says what to do.
    page.expectConsoleError(/status of 403/);
    await page.route(`${storage}/**`, (route) =>
      route.fulfill({
        status: 403,
        headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/xml' },
        body: '<Error><Code>RequestTimeTooSkewed</Code><Message>The difference is too large.</Message></Error>',
      }),
    );
    await input.setInputFiles({ name: 'late.csv', mimeType: 'text/csv', buffer: Buffer.from('a\n1\n') });
    await page
      .getByRole('alert')
      .filter({
        hasText: "(403 RequestTimeTooSkewed): this computer's clock is off: set it right and upload again",
      })
      .waitFor();
  });

  it('adds logs picked in Requests (click, shift-click, x) to a new group, as its draft', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          request_start_time: minutesAgo(20 + i),
          request_end_time: minutesAgo(19.9 + i),
          tags: ['picked'],
          input: {
            type: 'chat',
            messages: [{ role: 'user', content: [{ type: 'text', text: `pick ${i}` }] }],
          },
        }),
      });
      expect(answer.status).toBe(201);
    }
    const page = await ui.newPage();
    const filters = JSON.stringify([{ field: 'tags', operator: 'contains', value: 'picked' }]);
    await page.goto(`/ui/requests?f=${encodeURIComponent(filters)}`);
    await signIn(page, ui.service.apiKey);
    const boxes = page.getByRole('checkbox', { name: /^Select request / });
    await expect.poll(() => boxes.count()).toBe(4);

    // Click the first, shift-click the third: three selected.
    await boxes.nth(0).click();
    await boxes.nth(2).click({ modifiers: ['Shift'] });
    await page.getByText('3 selected').waitFor();
    expect(await boxes.evaluateAll((all) => all.map((box) => (box as any).checked))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    // Keys: j moves to the fourth row, x selects it, x again leaves it out.
    await page.getByRole('heading', { name: 'Requests' }).click();
    for (let i = 0; i < 3; i++) await page.keyboard.press('j');
    await page.locator('tbody tr').nth(3).and(page.locator('.requests-row-active')).waitFor();
    await page.keyboard.press('x');
    await page.getByText('4 selected').waitFor();
    await page.keyboard.press('x');
    await page.getByText('3 selected').waitFor();

    await page.getByRole('button', { name: 'Add 3 to dataset…' }).click();
    await page.getByLabel("New group's name").fill('picked logs');
    expect(await checkA11y(page, 'requests-selection')).toEqual([]);
    await page.getByRole('button', { name: "Add to the group's draft" }).click();
    await page.getByRole('button', { name: /^Draft/, pressed: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/datasets');
    await expect.poll(() => page.locator('.datasets-grid tr.datasets-row').count()).toBe(3);
    const grid = await page.locator('.datasets-grid').textContent();
    for (const text of ['pick 0', 'pick 1', 'pick 2']) expect(grid).toContain(text);
    expect(grid).not.toContain('pick 3');
  });
});

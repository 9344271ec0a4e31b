import { beforeAll, expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, signIn, type UiContext, type UiPage } from './support/browser.ts';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** A PNG of 2.3 MB-ish is not needed: 300 KB of base64 is enough to prove it is summarised, not shown. */
const IMAGE_BASE64 = Buffer.alloc(300_000, 7).toString('base64');
const XSS_OUTPUT = '<img src=x onerror=alert(1)>';
const XSS_LINK = '[click me](javascript:alert(1))';
const XSS_TAG = '<b>bold-tag</b>';

const chat = (role: string, text: string) => ({ role, content: [{ type: 'text', text }] });

/** The seeded logs: ids by name. */
interface Seeded {
  error: number;
  xss: number;
  tool: number;
  image: number;
}

async function seed(ui: UiContext): Promise<Seeded> {
  const log = async (minutes: number, overrides: Record<string, unknown>) => {
    const answer = await ui.service.call('POST', '/log-request', {
      body: logRequestBody({
        request_start_time: minutesAgo(minutes),
        request_end_time: minutesAgo(minutes - 0.02),
        input_tokens: 12,
        output_tokens: 34,
        ...overrides,
      }),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.id as number;
  };
  for (let i = 0; i < 3; i++)
    await log(60 + i, { tags: ['batch'], metadata: { user: `user-${i}` }, model: 'gpt-4o-mini' });
  const error = await log(30, {
    status: 'ERROR',
    error_type: 'PROVIDER_RATE_LIMIT',
    error_message: 'rate limited',
    tags: ['checkout'],
    metadata: { user: 'alice', env: 'prod' },
  });
  await log(25, { status: 'ERROR', error_type: 'PROVIDER_ERROR', tags: ['search'] });
  const xss = await log(20, {
    input: { type: 'chat', messages: [chat('user', XSS_LINK)] },
    output: { type: 'chat', messages: [chat('assistant', XSS_OUTPUT)] },
    tags: [XSS_TAG],
    metadata: { '<i>key</i>': '<script>alert(2)</script>' },
  });
  const tool = await log(15, {
    input: {
      type: 'chat',
      messages: [
        chat('user', 'Weather in Paris?'),
        {
          role: 'assistant',
          content: [],
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '{"temp": 21}' }] },
      ],
    },
    output: { type: 'chat', messages: [chat('assistant', 'It is 21 degrees in Paris.')] },
  });
  const image = await log(10, {
    input: {
      type: 'chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE_BASE64}` } },
          ],
        },
      ],
    },
  });
  // The filter builder's suggestions read the analytics rollups, which the change feed writes.
  await ui.service.changes.idle();
  return { error, xss, tool, image };
}

async function openRequests(ui: UiContext, path = '/ui/requests'): Promise<UiPage> {
  const page = await ui.newPage();
  await page.goto(path);
  await signIn(page, ui.service.apiKey);
  await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
  await page.locator('.requests-table tbody tr').first().waitFor();
  return page;
}

const rows = (page: UiPage) => page.locator('.requests-table tbody tr');
/** The row ids of the page shown, as their Open links name them. */
const openLinks = (page: UiPage) =>
  page.locator('.requests-table tbody a').evaluateAll((links) => links.map((link) => link.textContent ?? ''));
const search = (page: UiPage) => new URL(page.url()).searchParams;

describeUi('dashboard requests', (ui) => {
  let seeded: Seeded;
  beforeAll(async () => {
    seeded = await seed(ui);
  });

  it('shows the last day of logs, newest first, 25 a page, with axe clean in light and dark', async () => {
    const page = await openRequests(ui);
    // Seven logs of the last hours, the image log (newest) first.
    await expect.poll(() => rows(page).count()).toBe(8);
    await expect.poll(() => rows(page).first().textContent()).toContain('gpt-4o');
    expect(await page.getByRole('columnheader', { name: /Time/ }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    expect(await checkA11y(page, 'requests-table')).toEqual([]);
    await page.close();
  }, 120_000);

  it('filters ERROR logs of the last day with the filter builder, opens one, and reload and back keep the view', async () => {
    const page = await openRequests(ui);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Field').selectOption('status');
    await page.getByLabel('Operator').selectOption('is');
    await page.getByLabel('Value').fill('ERROR');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(JSON.parse(search(page).get('f') ?? '[]')).toEqual([
      { field: 'status', operator: 'is', value: 'ERROR' },
    ]);

    await page.getByRole('link', { name: `Open request ${seeded.error}` }).click();
    const pane = page.getByRole('complementary');
    await pane.getByRole('heading', { name: `Request ${seeded.error}` }).waitFor();
    await pane.getByText('rate limited').waitFor();
    expect(search(page).get('sel')).toBe(String(seeded.error));

    await page.reload();
    await pane.getByRole('heading', { name: `Request ${seeded.error}` }).waitFor();
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Remove filter status is ERROR' }).count()).toBe(1);

    await page.goBack();
    await expect.poll(() => search(page).get('sel')).toBeNull();
    expect(await pane.count()).toBe(0);
    await page.goBack();
    await expect.poll(() => rows(page).count()).toBe(8);
    await page.close();
  }, 120_000);

  it('filters by a click on a table cell and on a detail field', async () => {
    const page = await openRequests(ui);
    await page.getByRole('button', { name: 'Filter by tag checkout' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    await page.getByRole('link', { name: `Open request ${seeded.error}` }).click();
    await page.getByRole('button', { name: 'Filter by metadata env = prod' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Remove filter/ }).count()).toBe(2);
    expect(JSON.parse(search(page).get('f') ?? '[]')).toContainEqual({
      field: 'metadata',
      operator: 'key_equals',
      nested_key: 'env',
      value: 'prod',
    });
    await expect.poll(() => rows(page).count()).toBe(1);
    await page.close();
  }, 120_000);

  it('suggests values in the filter builder and filters on a metadata key', async () => {
    const page = await openRequests(ui);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Field').selectOption('engine');
    await page.getByLabel('Value').fill('gpt-4o-m');
    const values = () =>
      page
        .locator('#filter-value-suggestions option')
        .evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    await expect.poll(values).toContain('gpt-4o-mini');

    await page.getByLabel('Field').selectOption('metadata');
    await page.getByLabel('Key', { exact: true }).fill('user');
    await page.getByLabel('Operator').selectOption('key_equals');
    await page.getByLabel('Value').fill('alice');
    await expect.poll(values).toContain('alice');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(JSON.parse(search(page).get('f') ?? '[]')).toEqual([
      { field: 'metadata', operator: 'key_equals', nested_key: 'user', value: 'alice' },
    ]);
    await page.getByRole('button', { name: 'Remove filter metadata.user key equals alice' }).click();
    await expect.poll(() => rows(page).count()).toBe(8);
    await page.close();
  }, 120_000);

  it('says honestly when a search examined only its budget, and offers a shorter range', async () => {
    const page = await ui.newPage();
    // 50,000 logs are not seeded here: the answer of the real search is marked incomplete on its way.
    await page.route('**/api/public/v2/requests/search', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), incomplete_results: true } });
    });
    await page.goto('/ui/requests');
    await signIn(page, ui.service.apiKey);
    const notice = page.getByRole('status').filter({ hasText: 'examined' });
    await expect
      .poll(() => notice.textContent())
      .toContain('Only the newest 50,000 logs of this range were examined');
    await notice.getByRole('button', { name: 'Show the last hour' }).click();
    await expect.poll(() => search(page).get('range')).toBe('1h');
    // A search the page sent last may still be in the handler: it ends quietly with the page.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.close();
  }, 120_000);

  it('moves with j and k, opens with Enter, closes with Esc, focuses search with /', async () => {
    const page = await openRequests(ui);
    await expect.poll(() => rows(page).count()).toBe(8);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    // The second row (the tool call log) is open.
    await expect.poll(() => search(page).get('sel')).toBe(String(seeded.tool));
    await page.getByRole('complementary').getByText('get_weather').first().waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => search(page).get('sel')).toBeNull();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.type)).toBe('search');
    await page.keyboard.type('Paris');
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(search(page).get('q')).toBe('Paris');
    await page.close();
  }, 120_000);

  it('renders model output, markdown links, tags and metadata as text, never as HTML', async () => {
    const page = await openRequests(ui, `/ui/requests?sel=${seeded.xss}`);
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    const pane = page.getByRole('complementary');
    await pane.getByText(XSS_OUTPUT).first().waitFor();
    await pane.getByText(XSS_LINK).first().waitFor();
    await pane.getByText('<script>alert(2)</script>').first().waitFor();
    await page.getByText(XSS_TAG).first().waitFor();
    expect(await page.locator('main img, main script, main b, main i').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(dialogs).toBe(0);
    await page.close();
  }, 120_000);

  it('summarises a base64 image and offers it as a download; the open pane is axe clean', async () => {
    const page = await openRequests(ui, `/ui/requests?sel=${seeded.image}`);
    const pane = page.getByRole('complementary');
    await pane.getByText(/\[image\/png, 293\.0 KB\]/).waitFor();
    // Not one of the 400,000 base64 characters is in the page.
    expect(await page.evaluate(() => (globalThis as any).document.body.textContent.length)).toBeLessThan(
      20_000,
    );
    const download = page.waitForEvent('download');
    await pane.getByRole('button', { name: /Download image\/png/ }).click();
    expect((await download).suggestedFilename()).toMatch(/\.png$/);
    expect(await checkA11y(page, 'requests-detail')).toEqual([]);
    await page.close();
  }, 120_000);

  it('keeps the table beside the open pane: its last column is reachable, not under the pane', async () => {
    const page = await openRequests(ui, `/ui/requests?sel=${seeded.tool}`);
    const pane = page.getByRole('complementary');
    await pane.getByText('It is 21 degrees in Paris.').waitFor();
    const open = rows(page).first().getByRole('link', { name: /^Open/ });
    await open.scrollIntoViewIfNeeded();
    const box = await open.boundingBox();
    expect(box).toBeTruthy();
    // The link's own right end is where a click lands on it, not on the pane.
    const hit = await page.evaluate(
      ([x, y]) => (globalThis as any).document.elementFromPoint(x, y)?.closest('a')?.textContent ?? null,
      [box!.x + box!.width - 2, box!.y + box!.height / 2],
    );
    expect(hit).toMatch(/^Open/);
    await page.close();
  });

  it('edits scores and metadata, copies a cURL without the key, replays side by side and adds to a dataset', async () => {
    const page = await openRequests(ui, `/ui/requests?sel=${seeded.error}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const pane = page.getByRole('complementary');
    await pane.getByText('rate limited').waitFor();

    await pane.getByLabel('Score name').fill('quality');
    await pane.getByLabel('Score (0-100)').fill('80');
    await pane.getByRole('button', { name: 'Set score' }).click();
    await pane.getByText('quality').waitFor();
    await pane.getByLabel('Metadata key').fill('reviewed');
    await pane.getByLabel('Metadata value').fill('yes');
    await pane.getByRole('button', { name: 'Add metadata' }).click();
    await pane.getByRole('button', { name: 'Filter by metadata reviewed = yes' }).waitFor();
    const stored = await ui.service.call('GET', `/api/public/v2/requests/${seeded.error}`);
    expect(stored.body.scores).toMatchObject({ quality: 80 });
    expect(stored.body.metadata).toMatchObject({ reviewed: 'yes', env: 'prod' });

    await pane.getByRole('button', { name: 'Copy as cURL' }).click();
    await pane.getByText('Copied.').waitFor();
    const copied = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(copied).toContain('X-API-KEY: $PROMPTOPS_API_KEY');
    expect(copied).toContain(`/api/public/v2/requests/${seeded.error}`);
    expect(copied).not.toContain(ui.service.apiKey);

    await pane.getByLabel('Model for the replay').fill('gpt-4o-mini');
    await pane.getByRole('button', { name: 'Replay', exact: true }).click();
    const compare = pane.getByRole('region', { name: 'Original and replay' });
    await compare.getByText(/Replay \(request \d+\) gpt-4o-mini/).waitFor();
    await compare.getByRole('region', { name: 'Original output' }).waitFor();
    await compare.getByRole('region', { name: 'Replay output' }).waitFor();

    await pane.getByLabel('Dataset', { exact: true }).selectOption('new');
    await pane.getByLabel('New dataset name').fill('from the dashboard');
    await pane.getByRole('button', { name: 'Add to dataset' }).click();
    await pane.getByText('Added to the draft of from the dashboard.').waitFor();
    const datasets = await ui.service.call('GET', '/api/public/v2/datasets', {
      query: { name: 'from the dashboard' },
    });
    expect(datasets.body.datasets[0]).toMatchObject({ row_count: 1 });

    await pane.getByRole('button', { name: 'Raw JSON' }).click();
    expect(await pane.getByRole('button', { name: 'Raw JSON' }).getAttribute('aria-pressed')).toBe('true');
    await pane.getByText('"error_message": "rate limited"', { exact: false }).waitFor();
    await page.close();
  }, 120_000);

  it('hides edit actions from a read-only key', async () => {
    const page = await ui.newPage();
    await page.goto(`/ui/requests?sel=${seeded.error}`);
    await signIn(page, await ui.service.keyWithPermissions({ request_logs: 'read' }));
    const pane = page.getByRole('complementary');
    await pane.getByText('rate limited').waitFor();
    await pane.getByRole('button', { name: 'Copy as cURL' }).waitFor();
    for (const name of ['Set score', 'Add metadata', 'Replay', 'Add to dataset'])
      expect(await pane.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    await page.close();
  }, 120_000);

  it('pages 25 rows at a time by cursor, back with Previous, and keeps the chosen columns', async () => {
    for (let i = 0; i < 25; i++)
      await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          request_start_time: minutesAgo(120 + i),
          request_end_time: minutesAgo(119 + i),
        }),
      });
    const page = await openRequests(ui);
    await expect.poll(() => rows(page).count()).toBe(25);
    const firstPage = await openLinks(page);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => search(page).get('page')).toBe('2');
    expect(search(page).get('cursor')).toBeTruthy();
    // The seeded logs of this file, and the replay of the test above: 8 or 9 past the first 25.
    await expect
      .poll(async () => (await openLinks(page)).filter((link) => firstPage.includes(link)))
      .toEqual([]);
    const secondPage = await openLinks(page);
    expect(secondPage.length).toBeGreaterThanOrEqual(8);
    expect(secondPage.length).toBeLessThan(25);
    await page.reload();
    await expect.poll(() => openLinks(page)).toEqual(secondPage);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => rows(page).count()).toBe(25);
    expect(search(page).get('cursor')).toBeNull();

    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Cost' }).uncheck();
    await expect.poll(() => page.getByRole('columnheader', { name: /Cost/ }).count()).toBe(0);
    await page.reload();
    await rows(page).first().waitFor();
    expect(await page.getByRole('columnheader', { name: /Cost/ }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: /Latency/ }).count()).toBe(1);
    await page.close();
  }, 120_000);
});

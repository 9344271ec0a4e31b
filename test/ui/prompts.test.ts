import { beforeAll, expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { chat, publish } from '#test/support/prompts.ts';
import { checkA11y, describeUi, signIn, type UiPage } from './support/browser.ts';

/**
 * The Prompts screen in a real browser against a seeded local service: the list and its search, a
 * template's timeline and versions, a diff of two versions kept in the URL, a label moved through its
 * review (traffic from analytics), labels created and deleted, template text that looks like HTML shown
 * as text, and no edit actions for a read-only key.
 */
const SUPPORT = 'support-bot';
const XSS = 'xss-template';
const PAYLOAD = '<img src=x onerror=alert(1)>';

const model = (parameters: Record<string, unknown>) => ({
  metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters } },
});

describeUi('dashboard: prompts', (ui) => {
  let supportId: number;

  beforeAll(async () => {
    const versions = [
      { text: 'You are a helpful support agent.', commit: 'first draft', parameters: { temperature: 0.2 } },
      { text: 'You are a friendly support agent.', commit: 'friendlier', parameters: { temperature: 0.5 } },
      {
        text: 'You are a concise and friendly support agent.',
        commit: 'concise answers',
        parameters: { temperature: 0.7, max_tokens: 256 },
      },
    ];
    for (const [index, version] of versions.entries()) {
      const published = await publish(ui.service, SUPPORT, chat(version.text), {
        prompt_version: {
          prompt_template: chat(version.text),
          commit_message: version.commit,
          ...model(version.parameters),
        },
        prompt_template: { prompt_name: SUPPORT, tags: ['support'] },
        ...(index === 0 ? { release_labels: ['prod'] } : {}),
      });
      supportId = published.id;
    }
    await publish(ui.service, 'billing-faq', chat('Answer billing questions.'), { release_labels: ['prod'] });
    await publish(ui.service, XSS, chat(PAYLOAD));

    // Traffic of the last hours: version 1 three requests (one failed), version 3 two.
    const logs = [
      { version: 1, status: 'SUCCESS', seconds: 1 },
      { version: 1, status: 'SUCCESS', seconds: 2 },
      { version: 1, status: 'ERROR', seconds: 3 },
      { version: 3, status: 'SUCCESS', seconds: 1 },
      { version: 3, status: 'SUCCESS', seconds: 1 },
    ];
    const start = Date.now() - 3_600_000;
    for (const log of logs) {
      const answer = await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          prompt_id: supportId,
          prompt_version_number: log.version,
          input_tokens: 100,
          output_tokens: 20,
          request_start_time: new Date(start).toISOString(),
          request_end_time: new Date(start + log.seconds * 1000).toISOString(),
          status: log.status,
          ...(log.status === 'ERROR' ? { error_type: 'PROVIDER_ERROR', error_message: 'boom' } : {}),
        }),
      });
      expect(answer.status).toBe(201);
    }
  });

  async function openPrompts(path = '/ui/prompts', key = ui.service.apiKey): Promise<UiPage> {
    const page = await ui.newPage();
    await page.goto(path);
    await signIn(page, key);
    return page;
  }

  const main = (page: UiPage) => page.getByRole('main');
  const rowNames = (page: UiPage) => main(page).locator('.prompts-table tbody th').allTextContents();

  it('lists the templates with latest version, labels and tags, and searches by name (kept on reload)', async () => {
    const page = await openPrompts();
    await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
    await expect.poll(() => rowNames(page)).toEqual(['billing-faq', SUPPORT, XSS]);
    const support = main(page).getByRole('row').filter({ hasText: SUPPORT });
    expect(await support.getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['v3', 'prod', 'support']),
    );
    expect(await checkA11y(page, 'prompts-list')).toEqual([]);

    await page.keyboard.press('/');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('prompts-search');
    await page.keyboard.type('SUPP');
    await expect.poll(() => rowNames(page)).toEqual([SUPPORT]);
    expect(new URL(page.url()).searchParams.get('name')).toBe('SUPP');
    await page.reload();
    await expect.poll(() => rowNames(page)).toEqual([SUPPORT]);
    expect(await page.getByLabel('Search by name').inputValue()).toBe('SUPP');

    await main(page).getByRole('link', { name: SUPPORT, exact: true }).click();
    await page.getByRole('heading', { name: SUPPORT, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/prompts/${SUPPORT}`);
    await page.close();
  });

  it('opens a template: its timeline, the latest version rendered, any version by its link (?version=)', async () => {
    const page = await openPrompts(`/ui/prompts/${SUPPORT}`);
    const timeline = main(page).locator('.prompts-timeline tbody tr');
    await expect.poll(() => timeline.count()).toBe(3);
    expect(await timeline.nth(0).textContent()).toContain('concise answers');
    expect(await timeline.nth(2).textContent()).toContain('first draft');
    expect(await timeline.nth(2).textContent()).toContain('prod');
    await page.getByRole('heading', { name: 'Version 3 (latest)' }).waitFor();
    expect(await main(page).getByRole('article', { name: 'Message 1: system' }).textContent()).toContain(
      'You are a concise and friendly support agent.',
    );

    await main(page).getByRole('link', { name: 'v1', exact: true }).click();
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('version')).toBe('1');
    expect(await main(page).getByRole('link', { name: 'v1', exact: true }).getAttribute('aria-current')).toBe(
      'true',
    );
    const view = main(page).locator('.prompts-main');
    await expect.poll(() => view.textContent()).toContain('You are a helpful support agent.');
    expect(await view.textContent()).toContain('"temperature": 0.2');
    expect(await checkA11y(page, 'prompts-version')).toEqual([]);

    // The Requests screen's link to a version.
    await page.goto(`/ui/prompts/${SUPPORT}?version=2`);
    await page.getByRole('heading', { name: 'Version 2', exact: true }).waitFor();
    await expect.poll(() => view.textContent()).toContain('You are a friendly support agent.');
    await page.close();
  });

  it('diffs two versions word by word and their parameters as JSON, both in the URL (reload and back keep it)', async () => {
    const page = await openPrompts(`/ui/prompts/${SUPPORT}?version=1`);
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
    await page.getByLabel('From version').fill('1');
    await page.getByLabel('to version', { exact: true }).fill('3');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { name: 'Changes from version 1 to version 3' }).waitFor();
    expect(new URL(page.url()).searchParams.get('compare')).toBe('1..3');

    const expectDiff = async () => {
      const message = main(page).getByRole('article', { name: 'Message 1: system' });
      await expect.poll(() => message.locator('ins').allTextContents()).not.toEqual([]);
      expect((await message.locator('ins').allTextContents()).join('')).toMatch(
        /^concise\s*and friendly\s*$/,
      );
      expect(await message.locator('del').allTextContents()).toEqual(['helpful']);
      // The user message did not change.
      expect(await main(page).getByRole('article', { name: 'Message 2: user' }).textContent()).toContain(
        'unchanged',
      );
      const config = main(page).locator('.prompts-diff').last();
      expect((await config.locator('del').allTextContents()).join('')).toContain('"temperature": 0.2');
      const added = (await config.locator('ins').allTextContents()).join('');
      expect(added).toContain('"temperature": 0.7');
      expect(added).toContain('"max_tokens": 256');
    };
    await expectDiff();
    await page.reload();
    await expectDiff();

    // Escape closes the diff; back reopens it, and back again returns to version 1.
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Version 3 (latest)' }).waitFor();
    expect(new URL(page.url()).searchParams.get('compare')).toBeNull();
    await page.goBack();
    await expectDiff();
    await page.goBack();
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('compare')).toBeNull();
    await page.close();
  });

  it('moves a label only after a review showing the diff and both versions’ traffic', async () => {
    const page = await openPrompts(`/ui/prompts/${SUPPORT}`);
    await page.getByLabel('Move “prod” to version').fill('3');
    await page.getByRole('button', { name: 'Review move' }).click();
    await page.getByRole('heading', { name: 'Review: move “prod” from version 1 to version 3' }).waitFor();
    const url = new URL(page.url());
    expect([url.searchParams.get('move'), url.searchParams.get('to')]).toEqual(['prod', '3']);

    const traffic = main(page).locator('.prompts-traffic');
    const row = async (metric: string) =>
      traffic
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: metric }) })
        .getByRole('cell')
        .allTextContents();
    await traffic.waitFor();
    expect(await row('Requests')).toEqual(['3', '2']);
    expect(await row('Error rate')).toEqual(['33.3 %', '0.0 %']);
    const [p95Now, p95Target] = await row('Latency p95');
    expect(p95Now).toMatch(/^[23]\.\d\d s$/);
    expect(p95Target).toMatch(/^(1\.\d\d s|9\d\d ms)$/);
    expect((await row('Cost')).every((cost) => /^\$\d/.test(cost) && cost !== '$0.00')).toBe(true);
    await expect
      .poll(() =>
        main(page).getByRole('article', { name: 'Message 1: system' }).locator('del').allTextContents(),
      )
      .toEqual(['helpful']);
    expect(await checkA11y(page, 'prompts-review')).toEqual([]);

    // Nothing moved yet.
    const labels = async () =>
      (await ui.service.call('GET', `/prompt-templates/${SUPPORT}/labels`)).body.release_labels as {
        release_label: string;
        prompt_version_number: number;
      }[];
    expect((await labels()).find((label) => label.release_label === 'prod')?.prompt_version_number).toBe(1);

    await page.getByRole('button', { name: 'Move “prod” to version 3' }).click();
    await page.getByRole('heading', { name: 'Version 3 (latest)' }).waitFor();
    await expect
      .poll(
        async () => (await labels()).find((label) => label.release_label === 'prod')?.prompt_version_number,
      )
      .toBe(3);
    const prodRow = main(page).locator('.prompts-labels-table tbody tr').filter({ hasText: 'prod' });
    await expect.poll(() => prodRow.textContent()).toContain('v3');
    await page.close();
  });

  it("creates a label on a version, shows the API's 409 for a taken name, and deletes it", async () => {
    const page = await openPrompts(`/ui/prompts/${SUPPORT}?version=2`);
    // Chromium logs the refused request as a console error: expected here.
    page.expectConsoleError(/status of 409/);
    await page.getByLabel('New label').fill('canary');
    expect(await page.getByLabel('on version').inputValue()).toBe('2');
    await page.getByRole('button', { name: 'Create label' }).click();
    const canary = main(page).locator('.prompts-labels-table tbody tr').filter({ hasText: 'canary' });
    await expect.poll(() => canary.textContent()).toContain('v2');
    const onServer = async () =>
      (
        (await ui.service.call('GET', `/prompt-templates/${SUPPORT}/labels`)).body.release_labels as {
          release_label: string;
          prompt_version_number: number;
        }[]
      ).find((label) => label.release_label === 'canary');
    expect((await onServer())?.prompt_version_number).toBe(2);

    await page.getByLabel('New label').fill('canary');
    await page.getByRole('button', { name: 'Create label' }).click();
    await expect.poll(() => main(page).getByRole('alert').textContent()).toMatch(/canary/);

    await page.getByRole('button', { name: 'Delete label canary' }).click();
    await canary.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => canary.count()).toBe(0);
    expect(await onServer()).toBeUndefined();
    await page.close();
  });

  it('shows template text that looks like HTML as text', async () => {
    const page = await openPrompts(`/ui/prompts/${XSS}`);
    const message = main(page).getByRole('article', { name: 'Message 1: system' });
    await expect.poll(() => message.locator('pre').textContent()).toBe(PAYLOAD);
    expect(await main(page).locator('img').count()).toBe(0);
    await page.close();
  });

  it('hides edit actions from a key that may only read prompts', async () => {
    const key = await ui.service.keyWithPermissions({ prompts: 'read', request_logs: 'read' });
    const page = await openPrompts(`/ui/prompts/${SUPPORT}`, key);
    await main(page).locator('.prompts-labels-table').waitFor();
    expect(await main(page).locator('.prompts-labels-table tbody tr').count()).toBeGreaterThan(0);
    for (const name of ['Review move', 'Create label', 'Delete label prod'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await page.close();
  });
});

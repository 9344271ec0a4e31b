import { expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

const MINUTE = 60_000;

describeUi('dashboard monitors and settings', (ui) => {
  it('creates a monitor, shows it triggered once logs cross its threshold, edits and deletes it', async () => {
    const page = await ui.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/ui/monitors');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    await page.getByText('No monitors yet.').waitFor();

    // A filter and a group-by together are refused by the API, and its message is shown.
    page.expectConsoleError(/422/);
    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.getByLabel('Name').fill('<b>gpt-4o spend</b>');
    await page.getByLabel('Dimension').fill('model');
    await page.getByLabel('Value', { exact: true }).fill('gpt-4o');
    await page.getByLabel('Window (minutes)').fill('60');
    await page.getByLabel('Threshold').fill('0.1');
    await page.getByLabel('Cool-down (minutes)').fill('0');
    await page.getByLabel('Or watch each value of').fill('metadata.user_id');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/group_by|filter/);
    expect(await checkA11y(page, 'monitors-form')).toEqual([]);

    await page.getByLabel('Or watch each value of').fill('');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('heading', { name: '<b>gpt-4o spend</b>', level: 2 }).waitFor();
    expect(new URL(page.url()).searchParams.get('monitor')).toMatch(/^\d+$/);
    await expect.poll(() => page.locator('.monitor-state').textContent()).toMatch(/^OK: \$0\.0000/);
    expect(await page.locator('.monitors-table b').count()).toBe(0);
    expect(await page.locator('.monitor-facts').textContent()).toContain('Cool-downnone');

    // Three logs of $0.05 in the window: $0.15 > $0.10.
    const now = Date.now();
    for (const at of [5, 4, 3]) {
      const start = now - at * MINUTE;
      const answer = await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          price: 0.05,
          request_start_time: new Date(start).toISOString(),
          request_end_time: new Date(start + 500).toISOString(),
        }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    // The rollups follow the change feed, which delivers them now rather than after its batching window.
    await ui.service.changes.idle();
    expect(
      (await ui.service.call('POST', '/api/public/v2/requests/analytics', { body: {} })).body.totalRequests,
    ).toBe(3);
    // The service's own evaluation runs too (its event goes to webhooks; the page reads the value).
    await ui.service.runSchedules();
    await page.getByRole('button', { name: 'Refresh value' }).click();
    await expect
      .poll(() => page.locator('.monitor-state').textContent())
      .toMatch(/^TRIGGERED: \$0\.1500 > threshold/);
    // The evaluator's own state: triggered, its value, a chart of its evaluations, the trigger listed.
    await ui.service.runSchedules();
    await page.getByRole('button', { name: 'Refresh value' }).click();
    await expect
      .poll(() => page.locator('.monitor-evaluator').textContent())
      .toMatch(/^TRIGGERED · last evaluated .+ · value \$0\.1500$/);
    expect(await page.getByRole('img', { name: /^The last 2 evaluations/ }).getAttribute('aria-label')).toBe(
      'The last 2 evaluations, from $0.1500 to $0.1500; threshold $0.1000',
    );
    expect(await page.locator('.monitor-transitions tbody tr').allTextContents()).toEqual([
      expect.stringMatching(/triggered\$0\.1500$/),
    ]);
    expect(await checkA11y(page, 'monitors-triggered')).toEqual([]);

    // Reload keeps the selected monitor; a higher threshold is no longer crossed.
    await page.reload();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Threshold').fill('1');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('.monitor-state').textContent())
      .toMatch(/^OK: \$0\.1500 > threshold \$1\.00/);
    expect(await page.locator('.monitors-table td').nth(4).textContent()).toBe('> $1.00');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No monitors yet.').waitFor();
    const listed = await ui.service.call('GET', '/api/public/v2/monitors');
    expect(listed.body.monitors).toEqual([]);
  });

  it('sets, replaces and deletes a provider key without ever showing it; sets and deletes a price', async () => {
    const page = await ui.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/ui/settings');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('heading', { name: 'Provider keys', level: 2 }).waitFor();

    page.expectConsoleError(/422/);
    const secret = 'sk-test-secret-ABCD1234';
    await page.getByRole('button', { name: 'Set OpenAI key' }).click();
    await page.getByLabel('OpenAI API key').fill('short');
    await page.getByRole('button', { name: 'Save OpenAI key' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).not.toContain('short');

    await page.getByLabel('OpenAI API key').fill(secret);
    await page.getByRole('button', { name: 'Save OpenAI key' }).click();
    await page.getByRole('button', { name: 'Replace OpenAI key' }).waitFor();
    expect(await page.locator('.settings-table').first().textContent()).toContain('1234');
    expect(await page.content()).not.toContain(secret);
    // Nor in any field's value (page.content() shows attributes, not what a field holds).
    const values = await Promise.all((await page.locator('input').all()).map((input) => input.inputValue()));
    expect(values).not.toContain(secret);
    expect(await checkA11y(page, 'settings')).toEqual([]);

    await page.getByRole('button', { name: 'Delete OpenAI key' }).click();
    await page.getByRole('button', { name: 'Set OpenAI key' }).waitFor();
    expect((await ui.service.call('GET', '/api/public/v2/provider-keys')).body.provider_keys).toEqual([]);

    // A price override: refused values show the API's message, then one is set, listed and deleted.
    await page.getByLabel('Model', { exact: true }).fill('my-model');
    await page.getByLabel('Input ($ / M tokens)').fill('2000000');
    await page.getByLabel('Output ($ / M tokens)').fill('8');
    await page.getByRole('button', { name: 'Save price' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Input ($ / M tokens)').fill('2');
    await page.getByRole('button', { name: 'Save price' }).click();
    await page.getByRole('row', { name: /my-model/ }).waitFor();
    expect(
      (
        await page
          .getByRole('row', { name: /my-model/ })
          .locator('td')
          .allTextContents()
      ).slice(0, 6),
    ).toEqual(['any', '2', '8', '2', '2', '8']);
    expect(await checkA11y(page, 'settings-prices')).toEqual([]);
    await page.getByRole('button', { name: 'Delete my-model price' }).click();
    await page.getByText('No overrides.').waitFor();
  });
});

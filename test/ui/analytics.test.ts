import { expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

const MINUTE = 60_000;

// A browser test drives many steps: its time limit is the page's, not a unit test's.
describeUi('dashboard analytics', (ui) => {
  it('shows KPIs and charts (lazy chunk, table alternative), filters on a bar click and zooms on a drag', async () => {
    const now = Date.now();
    const logs = [
      ...Array.from({ length: 6 }, (_, i) => ({
        model: 'gpt-4o',
        status: 'SUCCESS',
        tags: ['checkout'],
        at: i,
      })),
      ...Array.from({ length: 3 }, (_, i) => ({
        model: 'claude-sonnet-4-5',
        status: 'ERROR',
        tags: [],
        at: 20 + i,
      })),
      { model: 'gpt-4o-mini', status: 'SUCCESS', tags: ['<b>html tag</b>'], at: 40 },
    ];
    for (const log of logs) {
      const start = now - 90 * MINUTE + log.at * MINUTE;
      const answer = await ui.service.call('POST', '/log-request', {
        body: logRequestBody({
          model: log.model,
          provider: log.model.startsWith('claude') ? 'anthropic' : 'openai',
          status: log.status,
          tags: log.tags,
          metadata: { team: log.model === 'gpt-4o' ? 'growth' : 'core' },
          input_tokens: 100,
          output_tokens: 50,
          request_start_time: new Date(start).toISOString(),
          request_end_time: new Date(start + 800).toISOString(),
        }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    // The rollups follow the change feed, which delivers them now rather than after its batching window.
    await ui.service.changes.idle();
    expect(
      (await ui.service.call('POST', '/api/public/v2/requests/analytics', { body: {} })).body.totalRequests,
    ).toBe(10);

    const page = await ui.newPage();
    const chunks: string[] = [];
    page.on('request', (request) => chunks.push(new URL(request.url()).pathname));
    await page.goto('/ui/analytics');
    await signIn(page, ui.service.apiKey);
    const kpi = (label: string) => page.locator('.kpi', { hasText: label }).locator('dd');
    await expect.poll(() => kpi('Requests').textContent()).toBe('10');
    expect(await kpi('Error rate').textContent()).toBe('30%');
    expect(await kpi('Tokens').textContent()).toBe('1,500');

    // The charts come from their own chunk and draw on canvases.
    await page.locator('.time-chart canvas').first().waitFor();
    expect(chunks.some((path) => /\/ui\/assets\/time-chart-[A-Z0-9]+\.js$/.test(path))).toBe(true);
    expect(await page.locator('.time-chart').count()).toBe(5);

    // Every chart has a table: the requests per bucket add up to the total.
    const requestsCard = page.locator('figure', {
      has: page.getByRole('heading', { name: 'Requests', level: 2 }),
    });
    await requestsCard.getByRole('button', { name: 'Show as table' }).click();
    const cells = await requestsCard.locator('tbody td').allTextContents();
    expect(cells.reduce((sum, cell) => sum + Number(cell.replaceAll(',', '')), 0)).toBe(10);
    // A tag written with HTML shows as text.
    await page.getByRole('region', { name: 'By tag' }).getByText('<b>html tag</b>').waitFor();
    expect(await page.locator('.breakdown b').count()).toBe(0);
    expect(await checkA11y(page, 'analytics')).toEqual([]);

    // A bar of a breakdown filters: the KPIs follow and the filter is in the URL.
    await page
      .getByRole('region', { name: 'By model' })
      .getByRole('button', { name: /^claude-sonnet-4-5/ })
      .click();
    await expect.poll(() => kpi('Requests').textContent()).toBe('3');
    // Under a dimension filter the rollups have no status counts: the rate says so rather than 0%.
    expect(await kpi('Error rate').textContent()).toBe('—');
    await page.getByText('the error rate and the breakdowns by other dimensions are left out').waitFor();
    expect(JSON.parse(new URL(page.url()).searchParams.get('f') ?? '[]')).toEqual([
      { field: 'engine', operator: 'is', value: 'claude-sonnet-4-5' },
    ]);
    // Reload keeps it; back removes it.
    await page.reload();
    await expect.poll(() => kpi('Requests').textContent()).toBe('3');
    await page.goBack();
    await expect.poll(() => kpi('Requests').textContent()).toBe('10');

    // Dragging across a chart zooms the range: the URL gets from/to, a reset returns to the preset.
    await requestsCard.getByRole('button', { name: 'Show as table' }).click();
    const costCard = page.locator('figure', { has: page.getByRole('heading', { name: 'Cost', level: 2 }) });
    const over = costCard.locator('.u-over');
    const box = await over.boundingBox();
    expect(box).toBeTruthy();
    await page.mouse.move(box!.x + box!.width * 0.5, box!.y + box!.height / 2);
    await page.mouse.down();
    await page.mouse.move(box!.x + box!.width * 0.95, box!.y + box!.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).not.toBeNull();
    await page.getByRole('button', { name: 'Reset zoom' }).waitFor();
    await page.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toBeNull();
    await page.close();
  }, 150_000);

  it('says there is no latency, not 0 ms, when the filter matches no request', async () => {
    const page = await ui.newPage();
    const none = JSON.stringify([{ field: 'engine', operator: 'is', value: 'no-such-model' }]);
    await page.goto(`/ui/analytics?f=${encodeURIComponent(none)}`);
    await signIn(page, ui.service.apiKey);
    const kpi = (label: string) => page.locator('.kpi', { hasText: label }).locator('dd');
    await expect.poll(() => kpi('Requests').textContent()).toBe('0');
    expect(await kpi('Latency p50').textContent()).toBe('—');
    expect(await kpi('Latency p95').textContent()).toBe('—');
    await page.close();
  });
});

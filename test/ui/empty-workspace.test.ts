import { expect, it } from 'vitest';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

/** What each list screen says when the workspace has nothing of its kind yet (a new team's first visit). */
const EMPTY_STATES: Record<string, RegExp> = {
  Requests: /No request matches this search/,
  Traces: /No traces yet/,
  Prompts: /No prompt templates yet/,
  Analytics: /No requests in this time range: nothing to plot/,
  Datasets: /No dataset groups yet/,
  Evaluations: /No reports/,
  Workflows: /No workflows yet: publish one with POST \/rest\/workflows/,
  Library: /0 items/,
  Webhooks: /No endpoints yet/,
  Monitors: /No monitors yet/,
  Settings: /not set/,
};

// Its own workspace (on the worker's service): one no other test file has written to.
describeUi('dashboard on an empty workspace', (ui) => {
  it('opens every screen without an error, each list saying it is empty; axe finds nothing', async () => {
    const page = await ui.newPage();
    await page.goto('/ui/');
    await signIn(page, ui.service.apiKey);
    const nav = page.getByRole('navigation', { name: 'Screens' });
    const screens = await nav.getByRole('link').allTextContents();
    expect(screens).toHaveLength(12);
    for (const name of screens) {
      await nav.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      const empty = EMPTY_STATES[name];
      if (empty) await page.getByText(empty).first().waitFor();
      expect(await page.getByRole('alert').count(), `an error shown on ${name}`).toBe(0);
      expect(await checkA11y(page, `empty-${name.toLowerCase()}`)).toEqual([]);
    }
    await page.close();
  });
});

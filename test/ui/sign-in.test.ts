import { expect, it } from 'vitest';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

describeUi('dashboard sign-in', (ui) => {
  it('refuses a wrong key with a clear message, then lands on Requests with the right key', async () => {
    const page = await ui.newPage();
    // Chromium logs the refused key's 401 as a console error: expected here.
    page.expectConsoleError(/status of 401/);
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui/requests');
    await page.getByRole('heading', { name: 'promptops' }).waitFor();
    expect(await checkA11y(page, 'sign-in')).toEqual([]);

    await signIn(page, 'pl_not-a-key');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This API key was refused');
    expect(await page.getByRole('navigation', { name: 'Screens' }).count()).toBe(0);

    await signIn(page, ui.service.apiKey);
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Requests' }).getAttribute('aria-current')).toBe('page');
    expect(new URL(page.url()).pathname).toBe('/ui/requests');
    expect(await checkA11y(page, 'requests')).toEqual([]);
    await page.close();
  });
});

import { expect, it } from 'vitest';
import { revokeApiKey } from '#shared/auth/api-keys.ts';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

const path = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describeUi(
  'dashboard shell',
  (ui) => {
    it('keeps the view in the URL: deep link, reload, back and forward, each screen its own chunk', async () => {
      const page = await ui.newPage();
      // The trace does not exist: its 404 is logged by Chromium.
      page.expectConsoleError(/status of 404/);
      await page.goto('/ui/traces?trace=abc123');
      await signIn(page, ui.service.apiKey);
      await page.getByRole('heading', { name: 'Traces', level: 1 }).waitFor();
      expect(path(page.url())).toBe('/ui/traces?trace=abc123');
      // The API's own message is shown.
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not found/i);

      await page.reload();
      await page.getByRole('heading', { name: 'Traces', level: 1 }).waitFor();
      expect(path(page.url())).toBe('/ui/traces?trace=abc123');

      const chunks: string[] = [];
      page.on('request', (request) => chunks.push(new URL(request.url()).pathname));
      await page.getByRole('link', { name: 'Prompts' }).click();
      await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
      expect(chunks.some((chunk) => /\/ui\/assets\/prompts-\w+\.js$/.test(chunk))).toBe(true);
      expect(await page.title()).toBe('Prompts · promptops');
      expect(await checkA11y(page, 'prompts-stub')).toEqual([]);

      await page.goBack();
      await page.getByRole('heading', { name: 'Traces', level: 1 }).waitFor();
      expect(path(page.url())).toBe('/ui/traces?trace=abc123');
      await page.goForward();
      await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
      await page.close();
    });

    it('signs out: the key is forgotten, reload stays on sign-in; "remember" keeps it across tabs', async () => {
      const page = await ui.newPage();
      await page.goto('/ui/requests');
      await signIn(page, ui.service.apiKey, { remember: true });
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
      // Remembered: another tab of the same browser profile opens signed in.
      const other = await page.context().newPage();
      await other.goto('/ui/analytics');
      await other.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
      await other.close();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.locator('#api-key').waitFor();
      expect(
        await page.evaluate(() => [
          (globalThis as any).sessionStorage.length,
          (globalThis as any).localStorage.getItem('promptops.apiKey'),
        ]),
      ).toEqual([0, null]);
      await page.reload();
      await page.locator('#api-key').waitFor();
      expect(await page.getByRole('navigation', { name: 'Screens' }).count()).toBe(0);
      await page.close();
    });

    it('returns to sign-in on a 401 anywhere (a key revoked while signed in)', async () => {
      const page = await ui.newPage();
      page.expectConsoleError(/status of 401/);
      const key = await ui.service.keyWithPermissions(READ_ONLY);
      await page.goto('/ui/requests');
      await signIn(page, key);
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
      const me = await ui.service.call('GET', '/api/public/v2/me', { key });
      await revokeApiKey(ui.service.workspaceId, me.body.key.id);

      await page.getByRole('link', { name: 'Prompts' }).click();
      await page.locator('#api-key').waitFor();
      expect(await page.locator('.notice').textContent()).toBe('Your session ended: sign in again.');
      expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('promptops.apiKey'))).toBe(
        null,
      );
      await page.close();
    });

    it('switches times between UTC and local, and keeps the choice on this device', async () => {
      const page = await ui.newPage();
      await page.goto('/ui/requests');
      await signIn(page, ui.service.apiKey);
      const toggle = page.getByRole('button', { name: 'UTC' });
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      await toggle.click();
      const local = page.getByRole('button', { name: 'Local time' });
      expect(await local.getAttribute('aria-pressed')).toBe('false');
      await page.reload();
      await page.getByRole('button', { name: 'Local time' }).waitFor();
      await page.close();
    });

    it('marks a read-only key and hides edit actions; a full key sees none of that', async () => {
      const page = await ui.newPage();
      await page.goto('/ui/requests');
      await signIn(page, await ui.service.keyWithPermissions(READ_ONLY));
      await page.getByText('Read-only key').waitFor();
      expect(await checkA11y(page, 'read-only-header')).toEqual([]);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, ui.service.apiKey);
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
      expect(await page.getByText('Read-only key').count()).toBe(0);
      await page.close();
    });

    it('saves a view under a name and opens it from the header', async () => {
      const page = await ui.newPage();
      page.expectConsoleError(/status of 404/);
      await page.goto('/ui/traces?trace=0af7651916cd43dd8448eb211c80319c&sort=duration');
      await signIn(page, ui.service.apiKey);
      await page.getByText('Views', { exact: true }).click();
      await page.getByLabel('Save this view as').fill('slow traces');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('link', { name: 'slow traces' }).waitFor();
      expect(await checkA11y(page, 'saved-views')).toEqual([]);
      await page.getByRole('link', { name: 'Requests' }).click();
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
      await page.getByText('Views', { exact: true }).click();
      await page.getByRole('link', { name: 'slow traces' }).click();
      await page.getByRole('heading', { name: 'Traces', level: 1 }).waitFor();
      expect(path(page.url())).toBe('/ui/traces?trace=0af7651916cd43dd8448eb211c80319c&sort=duration');
      await page.close();
    });

    it('fails a test on a Trusted Types or CSP violation in the page', async () => {
      const page = await ui.newPage();
      await page.goto('/ui/requests');
      await page.locator('#api-key').waitFor();
      await page.evaluate(() => {
        try {
          (globalThis as any).document.body.insertAdjacentHTML('beforeend', '<b>markup</b>');
        } catch {
          // refused by Trusted Types: the violation event is what the harness reports
        }
      });
      await expect
        .poll(() => ui.takeProblems().join('\n'))
        .toMatch(/CSP violation: require-trusted-types-for/);
      await page.close();
    });
  },
  // A revoked key is refused at once (no cached authorizer decision).
  { authorizerCacheTtlSeconds: 0 },
);

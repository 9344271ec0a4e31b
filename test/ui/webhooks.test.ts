import { afterAll, expect, it } from 'vitest';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { type ReceivedRequest, startReceiver } from '#test/support/receiver.ts';
import { checkA11y, describeUi, signIn, type UiPage } from './support/browser.ts';

/**
 * The webhooks screen against a loopback receiver (allowed through OUTBOUND_ALLOWED_HOSTS, read by the
 * service when it starts). The service's queue delays are scaled up (timeScale 100), so an automatic
 * retry of a failed delivery is minutes away: only the manual retry can deliver it during the test.
 */
let broken = true;
const receiver = await startReceiver(({ path }, response) => {
  if (path.startsWith('/broken') && broken) response.writeHead(500).end('boom <img src=x onerror=alert(1)>');
  else response.writeHead(200).end('ok');
});
process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
afterAll(async () => {
  await receiver.close();
  delete process.env.OUTBOUND_ALLOWED_HOSTS;
});

const poll = { timeout: 30_000, interval: 250 };

describeUi(
  'dashboard webhooks',
  (ui) => {
    async function open(page: UiPage) {
      await page.goto('/ui/webhooks');
      await signIn(page, ui.service.apiKey);
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    }

    /** Creates an endpoint through the form; answers the secret the dialog showed (then closes it). */
    async function create(page: UiPage, path: string) {
      await page.getByLabel('Endpoint URL').fill(`${receiver.url}${path}`);
      await page.locator('.webhook-create').getByLabel('report_finished').check();
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Signing secret' });
      const secret = (await dialog.locator('.secret').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      await dialog.getByRole('button', { name: 'I have copied it' }).click();
      return secret;
    }

    async function deliveryRow(page: UiPage, status: RegExp) {
      await expect
        .poll(async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return (await page.locator('.delivery-table tbody tr').first().textContent()) ?? '';
        }, poll)
        .toMatch(status);
    }

    it('creates an endpoint, sends a test event, inspects it and verifies its signature in the page', async () => {
      const page = await ui.newPage();
      await open(page);
      const secret = await create(page, '/ok');
      // The secret is shown once: gone from the page once the dialog is closed, and after a reload.
      expect(await page.locator('body').textContent()).not.toContain(secret);
      const webhookId = new URL(page.url()).searchParams.get('webhook');
      expect(webhookId).toMatch(/^\d+$/);
      await page.reload();
      await page.getByRole('heading', { name: /^Endpoint/ }).waitFor();
      expect(await page.locator('body').textContent()).not.toContain(secret);

      const before = receiver.received.length;
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByRole('status').filter({ hasText: 'Test event sent.' }).waitFor();
      await deliveryRow(page, /webhook_test.*delivered/);
      const sent = await expect
        .poll(() => receiver.received.slice(before).find((request) => request.path === '/ok'), poll)
        .toBeTruthy()
        .then(
          () => receiver.received.slice(before).find((request) => request.path === '/ok') as ReceivedRequest,
        );

      await page
        .locator('.delivery-table')
        .getByRole('button', { name: /Inspect/ })
        .first()
        .click();
      await page.getByRole('heading', { name: /^Delivery / }).waitFor();
      expect(new URL(page.url()).searchParams.get('delivery')).toBe(sent.headers['webhook-id']);
      expect(await page.locator('.webhook-id').textContent()).toBe(sent.headers['webhook-id']);

      // The attempt shows the signature headers the receiver got; "Verify" fills the verifier with
      // them and the body, and the owner types the secret.
      const attempts = page.locator('.attempt-table tbody tr');
      await expect.poll(() => attempts.count(), poll).toBe(1);
      expect(await attempts.locator('.attempt-code').textContent()).toBe('200');
      const shownHeaders = await attempts.locator('.attempt-headers dd').allTextContents();
      expect(shownHeaders).toEqual([
        sent.headers['webhook-id'],
        sent.headers['webhook-timestamp'],
        sent.headers['webhook-signature'],
        sent.headers['x-promptlayer-signature'],
      ]);
      await attempts.getByRole('button', { name: 'Verify attempt 1' }).click();
      expect(await page.getByLabel('webhook-id').inputValue()).toBe(sent.headers['webhook-id']);
      expect(await page.getByLabel('Body (exactly as received)').inputValue()).toBe(sent.body);
      expect(await page.getByLabel('webhook-timestamp').inputValue()).toBe(sent.headers['webhook-timestamp']);
      expect(await page.getByLabel('webhook-signature').inputValue()).toBe(sent.headers['webhook-signature']);
      await page.keyboard.type(secret); // the secret field has the focus
      expect(await page.getByLabel('Secret (whsec_...)').inputValue()).toBe(secret);
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await expect.poll(() => page.locator('.verdict').textContent()).toMatch(/^Valid/);
      expect(await checkA11y(page, 'webhooks')).toEqual([]);

      await page
        .getByLabel('Body (exactly as received)')
        .fill(sent.body.replace('webhook_test', 'webhook_tost'));
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await expect.poll(() => page.locator('.verdict').textContent()).toMatch(/^Wrong signature/);

      await page.getByLabel('Body (exactly as received)').fill(sent.body);
      await page
        .getByLabel('webhook-timestamp')
        .fill(String(Number(sent.headers['webhook-timestamp']) - 3600));
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await expect.poll(() => page.locator('.verdict').textContent()).toMatch(/^Timestamp too old/);

      await page.getByLabel('webhook-signature').fill('not a signature');
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await expect.poll(() => page.locator('.verdict').textContent()).toMatch(/^Malformed/);
      await page.close();
    });

    it('shows a failed delivery with the receiver answer as text, and retries it once the receiver is fixed', async () => {
      const page = await ui.newPage();
      await open(page);
      await create(page, '/broken');
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await deliveryRow(page, /webhook_test.*pending \(retrying\).*500/);
      await page
        .locator('.delivery-table')
        .getByRole('button', { name: /Inspect/ })
        .first()
        .click();
      await expect
        .poll(() => page.locator('.response-excerpt').textContent(), poll)
        .toContain('boom <img src=x onerror=alert(1)>');
      await expect
        .poll(() => page.locator('.attempt-table .attempt-excerpt').first().textContent(), poll)
        .toBe('boom <img src=x onerror=alert(1)>');
      expect(await page.locator('.delivery-details img').count()).toBe(0);
      expect(await checkA11y(page, 'webhooks-failed')).toEqual([]);

      broken = false;
      await page.getByRole('button', { name: 'Retry delivery' }).click();
      await page.getByRole('status').filter({ hasText: 'Retry queued.' }).waitFor();
      await deliveryRow(page, /webhook_test.*delivered.*200/);
      // Both attempts, the failed one and the one that delivered it.
      await expect
        .poll(() => page.locator('.attempt-table .attempt-code').allTextContents(), poll)
        .toEqual(['500', '200']);
      // Reload keeps the endpoint and the delivery inspected.
      await page.reload();
      await page.getByRole('heading', { name: /^Delivery / }).waitFor();
      await expect
        .poll(() => page.locator('.attempt-table .attempt-code').allTextContents(), poll)
        .toEqual(['500', '200']);
      await page.close();
    });

    it('edits event types and disables an endpoint; a read-only key sees no edit action; delete removes it', async () => {
      const page = await ui.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await open(page);
      const first = await create(page, '/edited');
      const endpoint = page.locator('.webhook-endpoint');
      await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.getByRole('dialog', { name: 'Signing secret' });
      const rotated = (await dialog.locator('.secret').textContent()) ?? '';
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(first);
      await dialog.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.locator('body').textContent()).not.toContain(rotated);
      await expect.poll(() => endpoint.textContent()).toContain('the previous secret signs too until');
      await endpoint.getByLabel('monitor_triggered').check();
      await endpoint.getByRole('button', { name: 'Save event types' }).click();
      await page.getByRole('status').filter({ hasText: 'Event types saved.' }).waitFor();
      await endpoint.getByRole('button', { name: 'Disable' }).click();
      await endpoint.getByRole('button', { name: 'Enable' }).waitFor();
      const row = page.locator('.webhook-table tr', { hasText: `${receiver.url}/edited` });
      await expect.poll(() => row.textContent()).toMatch(/2disabled/);
      const url = page.url();

      // The same view with a read-only key: the endpoint and its deliveries, no edit action.
      const readOnly = await ui.newPage();
      await readOnly.goto(url);
      await signIn(readOnly, await ui.service.keyWithPermissions(READ_ONLY));
      await readOnly.getByText('Events: report_finished, monitor_triggered').waitFor();
      for (const name of ['Create endpoint', 'Send a test event', 'Rotate secret', 'Delete', 'Enable'])
        expect(await readOnly.getByRole('button', { name }).count(), name).toBe(0);
      expect(await checkA11y(readOnly, 'webhooks-read-only')).toEqual([]);
      await readOnly.close();

      await endpoint.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => row.count()).toBe(0);
      expect(new URL(page.url()).searchParams.get('webhook')).toBeNull();
      await page.close();
    });
  },
  { timeScale: 100 },
);

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServiceOptions, REPO_ROOT } from '#infra/local/service.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { CHROMIUM, launchChromium } from './chromium.ts';

/**
 * The dashboard's browser tests: Debian's Chromium driven by playwright-core, one browser per worker
 * (each file in browser contexts of its own) and a local service: the worker's, shared as the
 * e2e-shared project's is (the ui-shared project), or one of the file's own (the ui project: files
 * that need service options). Every page fails its test on any CSP violation (a `securitypolicyviolation`
 * event, Trusted Types included), console error or uncaught page error, unless the test said that
 * error is expected (`page.expectConsoleError(/401/)`: a refused key is logged by Chromium).
 *
 * Without /usr/bin/chromium the suites skip with one loud line; under CI=true they fail instead (.ci/run
 * installs Chromium with apt), so CI never passes without them.
 */
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';

const ARTIFACTS_DIR = join(REPO_ROOT, 'test', 'ui', 'artifacts');

const UI_TEST_TIMEOUT_MS = 120_000;

export interface UiContext {
  service: TestService;
  /** A new page (its own browser context: no storage shared with other pages) with the failure listeners. */
  newPage(): Promise<UiPage>;
  /**
   * The CSP violations, console and page errors recorded so far in this test, which then no longer fail
   * it (a test that provokes one on purpose checks it was seen).
   */
  takeProblems(): string[];
}

export interface UiPage extends Page {
  /** Console errors matching this are expected in this test (e.g. the 401 of a refused key). */
  expectConsoleError(pattern: RegExp): void;
}

/**
 * A describe block of browser tests: `ui` is filled in before the first test. Skips (locally) or fails
 * (CI=true) when Chromium is missing.
 */
export function describeUi(
  name: string,
  body: (ui: UiContext) => void,
  serviceOptions: LocalServiceOptions = {},
): void {
  if (!hasChromium) {
    if (inCi) {
      describe(name, () => {
        it(`needs Chromium at ${CHROMIUM}`, () => {
          throw new Error(`CI=true and ${CHROMIUM} is missing: install it (apt-get install chromium)`);
        });
      });
      return;
    }
    console.warn(
      `\n!!! UI TESTS SKIPPED (${name}): ${CHROMIUM} is missing; install Debian's chromium package to run them !!!\n`,
    );
    describe.skipIf(true)(name, () => body({} as UiContext));
    return;
  }
  // A browser flow on a loaded machine (2 cores, several test files at once) needs more than 30 s.
  describe(name, { timeout: UI_TEST_TIMEOUT_MS }, () => {
    const problems: string[] = [];
    const expected: RegExp[] = [];
    const context = {} as UiContext;
    const browserContexts: BrowserContext[] = [];
    beforeAll(async () => {
      context.service = await startTestService(serviceOptions);
      context.takeProblems = () => problems.splice(0);
      const browser = await workerBrowser();
      context.newPage = async () => {
        const browserContext = await browser.newContext({ baseURL: context.service.baseUrl });
        browserContexts.push(browserContext);
        const page = (await browserContext.newPage()) as UiPage;
        page.expectConsoleError = (pattern) => expected.push(pattern);
        // Runs in the page (DOM types are not the tests'): `globalThis` is the page's window.
        await page.addInitScript(() => {
          (globalThis as any).document.addEventListener('securitypolicyviolation', (event: any) => {
            console.error(
              `CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || '(inline)'} at ${event.sourceFile}:${event.lineNumber}`,
            );
          });
        });
        page.on('console', (message) => {
          if (message.type() !== 'error') return;
          const text = `console error: ${message.text()}`;
          if (!/CSP violation/.test(text) && expected.some((pattern) => pattern.test(text))) return;
          problems.push(text);
        });
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        return page;
      };
    });
    afterEach(async () => {
      const found = problems.splice(0);
      expected.splice(0);
      // A test's pages end with it: one left open would go on polling the service (and the CPU) for the
      // rest of the file, and what it logged would be blamed on a later test.
      await Promise.all(browserContexts.splice(0).map(closeContext));
      problems.splice(0);
      expect(found, 'CSP violations, console errors or page errors').toEqual([]);
    });
    afterAll(async () => {
      try {
        await Promise.all(browserContexts.map(closeContext));
      } finally {
        await context.service?.stop();
      }
    });
    body(context);
  });
}

/** Closes a test's browser context; a route handler still in flight ends quietly instead of throwing. */
async function closeContext(browserContext: BrowserContext): Promise<void> {
  await Promise.all(browserContext.pages().map((page) => page.unrouteAll({ behavior: 'ignoreErrors' })));
  await browserContext.close();
}

/** Kept on the global object, which outlives any fresh evaluation of this module. */
const WORKER_BROWSER = Symbol.for('promptops.uiBrowser');

/**
 * The worker's Chromium, launched by its first file: the files of a worker run one after another, each in
 * browser contexts of its own (closed after the file), so launching one per file would only cost time.
 * Playwright ends it with the worker's process. A launch that failed, or a browser that went away, is
 * launched again by the next file rather than failing every file after it.
 */
function workerBrowser(): Promise<Browser> {
  const store = globalThis as { [WORKER_BROWSER]?: Promise<Browser> };
  const forget = () => {
    delete store[WORKER_BROWSER];
  };
  store[WORKER_BROWSER] ??= launchChromium().then(
    (browser) => browser.once('disconnected', forget),
    (error: unknown) => {
      forget();
      throw error;
    },
  );
  return store[WORKER_BROWSER];
}

/** Signs in on the sign-in screen with this key and waits for the dashboard (or the refusal). */
export async function signIn(page: Page, key: string, options: { remember?: boolean } = {}): Promise<void> {
  if (!(await page.locator('#api-key').isVisible())) await page.goto('/ui/');
  await page.locator('#api-key').fill(key);
  if (options.remember) await page.getByLabel('Remember on this device').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).or(page.getByRole('alert')).first().waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * `UI_SCREENSHOTS=1 npm run test:ui` writes the screenshots (test/ui/artifacts/<name>.png: each check's, in
 * light and dark, and a few of moments worth seeing), to look at; a run without it spares the browser the
 * captures (a full-page one is about a fifth of a check's time).
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (process.env.UI_SCREENSHOTS !== '1') return;
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), ...options });
}

/** The axe rules whose outcome depends on the colour scheme. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * axe-core on the page in light and dark (prefers-color-scheme): the violations found, as lines (none
 * expected). axe is evaluated through the DevTools protocol (`page.evaluate` of its source), which the
 * page's CSP does not govern, so the page keeps its real CSP and Trusted Types (a violation axe caused
 * would fail the test too). Every rule runs in light; in dark only the rules that read colours (contrast,
 * links told apart by colour alone), since the rest see the same DOM. With UI_SCREENSHOTS=1, a screenshot of
 * each scheme goes to test/ui/artifacts/<name>-<scheme>.png.
 */
export async function checkA11y(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
    const rules = colorScheme === 'light' ? undefined : COLOUR_RULES;
    const violations = (await page.evaluate(async (rules) => {
      const page = globalThis as any;
      const runOnly = rules ? { type: 'rule', values: rules } : undefined;
      return (await page.axe.run(page.document, { resultTypes: ['violations'], runOnly })).violations;
    }, rules)) as AxeViolation[];
    for (const violation of violations)
      found.push(
        `${colorScheme}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`,
      );
    await saveScreenshot(page, `${name}-${colorScheme}`, { fullPage: true });
  }
  await page.emulateMedia({ colorScheme: null });
  return found;
}

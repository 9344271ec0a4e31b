import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../../test/ui/support/chromium.ts';
import { describeGridTiming, measureDatasetGrid } from '../../test/ui/support/dataset-grid.ts';
import { ensureUiBuilt } from '../../ui/build.ts';
import { bundleReport, UI_BUDGETS } from '../../ui/bundle-report.ts';
import { tenKilobyteLog } from './log-request.ts';
import { type BenchRow, percentile } from './support.ts';

/**
 * `npm run bench -- ui`: the dashboard's bundle (every chunk, gzip, against the budgets of
 * docs/dashboard.md), the time from navigation to the first table row of Requests on a seeded local
 * service, and the Datasets grid with 10,000 rows (first paint, scroll frame times), in Debian's Chromium.
 */
const GRID_ROWS = 10_000;
const SEEDED_LOGS = 200;
const RUNS = 7;
/** What the init script uses of the page's window (the bench has no DOM types). */
interface PageGlobals {
  sessionStorage: { setItem(name: string, value: string): void };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export async function benchUi(service: { baseUrl: string; apiKey: string }): Promise<BenchRow[]> {
  await ensureUiBuilt();
  const report = bundleReport();
  const rows: BenchRow[] = report.files.map((file) => ({
    name: `ui bundle: ${file.file} (${file.kind})`,
    value: `${kb(file.gzipBytes)} gzip (${kb(file.bytes)})`,
    target: '',
  }));
  rows.push(
    {
      name: 'ui bundle: initial JS',
      value: `${kb(report.initialJsGzip)} gzip`,
      target: `<= ${kb(UI_BUDGETS.initialJs)}`,
    },
    { name: 'ui bundle: CSS', value: `${kb(report.cssGzip)} gzip`, target: `<= ${kb(UI_BUDGETS.css)}` },
    ...report.lazyLoads.map((load) => ({
      name: `ui bundle: lazy ${load.source}`,
      value: `${kb(load.gzipBytes)} gzip`,
      target: `<= ${kb(UI_BUDGETS.lazyChunk)}`,
    })),
    {
      name: 'ui bundle: whole UI',
      value: `${kb(report.totalGzip)} gzip`,
      target: `<= ${kb(UI_BUDGETS.total)}`,
    },
  );
  if (!existsSync(CHROMIUM)) {
    rows.push({ name: 'ui: navigation to first row', value: `skipped: no ${CHROMIUM}`, target: '< 1500 ms' });
    return rows;
  }
  // Logs of the last minutes: the Requests screen shows the last 24 hours by default.
  const now = Date.now() / 1000;
  for (let i = 0; i < SEEDED_LOGS; i++) {
    const log = {
      ...JSON.parse(tenKilobyteLog(i)),
      request_start_time: now - i - 1,
      request_end_time: now - i,
    };
    const answer = await fetch(`${service.baseUrl}/log-request`, {
      method: 'POST',
      headers: { 'X-API-KEY': service.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(log),
    });
    if (!answer.ok) throw new Error(`seeding logs: ${answer.status} ${await answer.text()}`);
  }
  const browser = await launchChromium();
  try {
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // A new context each run: no cache, the key put in sessionStorage before the page loads (where
      // ui/src/api/session.ts keeps it).
      const context = await browser.newContext({ baseURL: service.baseUrl });
      await context.addInitScript(
        (key) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('promptops.apiKey', key),
        service.apiKey,
      );
      const page = await context.newPage();
      const started = performance.now();
      await page.goto('/ui/requests');
      await page.locator('main table tbody tr').first().waitFor();
      samples.push(performance.now() - started);
      await context.close();
    }
    rows.push({
      name: `ui: navigation to first table row, ${SEEDED_LOGS} logs, ${RUNS} cold loads (p50 / max)`,
      value: `${Math.round(percentile(samples, 50))} / ${Math.round(Math.max(...samples))} ms`,
      target: '< 1500 ms',
    });
    rows.push(await benchDatasetGrid(service, browser));
  } finally {
    await browser.close();
  }
  return rows;
}

/** A group whose version 1 holds GRID_ROWS rows (the from-file job), opened in the Datasets screen. */
async function benchDatasetGrid(
  service: { baseUrl: string; apiKey: string },
  browser: Browser,
): Promise<BenchRow> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { 'X-API-KEY': service.apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as T;
  };
  const group = await call<{ dataset_group: { id: number } }>('POST', '/api/public/v2/dataset-groups', {
    name: `bench grid ${Date.now()}`,
  });
  const rows = Array.from({ length: GRID_ROWS }, (_, i) => ({
    question: `question ${i}`,
    answer: `answer ${i}`,
  }));
  const { dataset_id: datasetId } = await call<{ dataset_id: number }>(
    'POST',
    '/api/public/v2/dataset-versions/from-file',
    {
      dataset_group_id: group.dataset_group.id,
      file_name: 'bench.json',
      file_content_base64: Buffer.from(JSON.stringify(rows)).toString('base64'),
    },
  );
  for (let waited = 0; ; waited += 200) {
    const { dataset } = await call<{ dataset: { job_status: string | null; job_error: string | null } }>(
      'GET',
      `/api/public/v2/datasets/${datasetId}`,
    );
    if (dataset.job_status === 'SUCCESS') break;
    if (dataset.job_status === 'FAILED' || waited > 120_000)
      throw new Error(`grid seed: ${dataset.job_error}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const context = await browser.newContext({ baseURL: service.baseUrl });
  await context.addInitScript(
    (key) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('promptops.apiKey', key),
    service.apiKey,
  );
  try {
    const page = await context.newPage();
    await page.goto(`/ui/datasets?group=${group.dataset_group.id}&version=${datasetId}`);
    const timing = await measureDatasetGrid(page, 'question 0');
    return {
      name: 'ui: datasets grid',
      value: describeGridTiming(GRID_ROWS, timing),
      target: 'frames < 16 ms',
    };
  } finally {
    await context.close();
  }
}

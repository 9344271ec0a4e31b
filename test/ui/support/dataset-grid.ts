import type { Page } from 'playwright-core';

/**
 * The dataset grid's speed with a big version open, measured in the page (Performance API, rAF to rAF),
 * by the browser test and by `npm run bench -- ui` alike: the time from sign-in to the first row painted,
 * then 60 frames of wheel-like scrolling (10 rows a frame), then a jump to the end (the last rows are
 * fetched). Printed, never asserted.
 */
export interface GridTiming {
  firstPaintMs: number;
  frameP50: number;
  frameP95: number;
  frameMax: number;
}

/** `page` shows the Datasets screen of the version, signing in; `firstCell` is row 0's first cell. */
export async function measureDatasetGrid(page: Page, firstCell: string): Promise<GridTiming> {
  const started = await page.evaluate(() => performance.now());
  await page.getByRole('cell', { name: firstCell, exact: true }).waitFor({ timeout: 60_000 });
  const firstPaintMs = (await page.evaluate(() => performance.now())) - started;
  const frames = await page.evaluate(async () => {
    // Runs in the page (DOM types are not the tests'): `globalThis` is the page's window.
    const window = globalThis as any;
    const grid = window.document.querySelector('.datasets-grid');
    // No named function inside: tsx (the bench) would wrap it in a helper the page does not have.
    const times: number[] = [];
    let previous: number = await new Promise((resolve) => window.requestAnimationFrame(resolve));
    for (let step = 1; step <= 60; step++) {
      grid.scrollTop = step * 280;
      const now: number = await new Promise((resolve) => window.requestAnimationFrame(resolve));
      times.push(now - previous);
      previous = now;
    }
    grid.scrollTop = grid.scrollHeight;
    return times.sort((a, b) => a - b);
  });
  return {
    firstPaintMs,
    frameP50: frames[30] ?? Number.NaN,
    frameP95: frames[57] ?? Number.NaN,
    frameMax: frames[59] ?? Number.NaN,
  };
}

export const describeGridTiming = (rows: number, timing: GridTiming) =>
  `datasets grid, ${rows.toLocaleString('en-US')} rows: first paint ${timing.firstPaintMs.toFixed(0)} ms; scroll frame p50 ${timing.frameP50.toFixed(1)} ms, p95 ${timing.frameP95.toFixed(1)} ms, max ${timing.frameMax.toFixed(1)} ms`;

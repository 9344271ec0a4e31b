import { beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt } from '../../ui/build.ts';
import { type BundleReport, bundleReport, UI_BUDGETS } from '../../ui/bundle-report.ts';

/**
 * The dashboard's size budgets (docs/dashboard.md), read from esbuild's metafile of the current build:
 * a screen that pulls a heavy dependency into the initial JS, or grows past its share, fails here.
 */
let report: BundleReport;
beforeAll(async () => {
  await ensureUiBuilt();
  report = bundleReport();
});

describe('dashboard bundle budgets (gzip)', () => {
  it(`keeps the initial JS (entry and its static imports) within ${UI_BUDGETS.initialJs / 1024} KB`, () => {
    expect(report.files.filter((file) => file.kind === 'initial').length).toBeGreaterThan(0);
    expect(report.initialJsGzip).toBeLessThanOrEqual(UI_BUDGETS.initialJs);
  });

  it(`keeps the CSS within ${UI_BUDGETS.css / 1024} KB`, () => {
    expect(report.cssGzip).toBeGreaterThan(0);
    expect(report.cssGzip).toBeLessThanOrEqual(UI_BUDGETS.css);
  });

  it(`loads each screen as its own lazy chunk within ${UI_BUDGETS.lazyChunk / 1024} KB`, () => {
    expect(report.lazyLoads.map((load) => load.source)).toEqual(
      expect.arrayContaining(
        ['requests', 'traces', 'prompts', 'analytics'].map((screen) => `ui/src/screens/${screen}/index.tsx`),
      ),
    );
    for (const load of report.lazyLoads)
      expect(load.gzipBytes, load.source).toBeLessThanOrEqual(UI_BUDGETS.lazyChunk);
  });

  it('holds a lazy chunk a screen loads itself to the same budget (the analytics chart, uPlot)', () => {
    const chart = report.lazyLoads.find((load) => load.source === 'ui/src/screens/analytics/time-chart.tsx');
    expect(chart?.gzipBytes).toBeGreaterThan(10 * 1024);
    expect(chart?.gzipBytes).toBeLessThanOrEqual(UI_BUDGETS.lazyChunk);
  });

  it('holds the workflow graph chunk (dagre) to the lazy chunk budget', () => {
    const graph = report.lazyLoads.find((load) => load.source === 'ui/src/screens/workflows/graph.tsx');
    expect(graph?.gzipBytes).toBeGreaterThan(10 * 1024);
    expect(graph?.gzipBytes).toBeLessThanOrEqual(UI_BUDGETS.lazyChunk);
  });

  it(`keeps the whole UI within ${UI_BUDGETS.total / 1024} KB`, () => {
    expect(report.totalGzip).toBeLessThanOrEqual(UI_BUDGETS.total);
  });
});

import type { BenchRow } from './support.ts';

/**
 * `npm run bench`: the numbers each issue names, printed as one table. Sections run in turn and are
 * loaded only when they run (so one section's memory does not count against the next); a section that
 * needs the local emulators starts its own. `npm run bench -- <section...>` runs only those.
 */
const SECTIONS: Record<string, () => Promise<BenchRow[]>> = {
  'log-request': async () =>
    withLocalService(async () => (await import('./log-request.ts')).benchLogRequestCalls()),
  latency: async () => (await import('./log-request.ts')).benchLogRequestLatency(),
  bundles: async () => (await import('./bundles.ts')).benchBundles(),
  throughput: async () => (await import('./throughput.ts')).benchThroughput(),
  filters: async () => (await import('./filter-engine.ts')).benchFilterEngine(),
  'file-parser': async () => (await import('./file-parser.ts')).benchFileParser(),
  prompts: async () => (await import('./prompts.ts')).benchPrompts(),
  search: async () => withLocalService(async () => (await import('./search.ts')).benchSearch()),
  datasets: async () => (await import('./datasets.ts')).benchDatasets(),
};

/** Runs a section against the local runtime's emulators (in memory), which set the functions' env. */
async function withLocalService(run: () => Promise<BenchRow[]>): Promise<BenchRow[]> {
  const { startLocalService } = await import('../local/service.ts');
  const service = await startLocalService({ port: 0, dataDir: null });
  try {
    return await run();
  } finally {
    await service.stop();
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in SECTIONS));
if (unknown.length) {
  console.error(`Unknown section(s): ${unknown.join(', ')}. Sections: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
const rows: BenchRow[] = [];
for (const [name, run] of Object.entries(SECTIONS)) {
  if (wanted.length && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}...\n`);
  rows.push(...(await run()));
}
console.table(rows.map((row) => ({ metric: row.name, value: row.value, target: row.target })));
process.exit(0);

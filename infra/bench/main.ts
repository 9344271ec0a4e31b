import { fileURLToPath } from 'node:url';
import type { BenchRow } from './support.ts';

/**
 * `npm run bench`: the service's performance numbers (budgets in docs/local-development.md), printed as
 * one table. Each section runs in a fresh child process, as a cold Lambda would: one section's memory,
 * JIT state or AWS clients (created once per process, against the emulators it started) never count
 * against the next. A section that needs the local emulators starts its own. `npm run bench --
 * <section...>` runs only those; `--profile` writes each section's CPU profile (`node --cpu-prof`) to
 * `.bench/profiles/` (open it in Chrome DevTools' Performance panel).
 */
const SECTIONS: Record<string, () => Promise<BenchRow[]>> = {
  'log-request': async () =>
    withLocalService(async () => (await import('./log-request.ts')).benchLogRequestCalls()),
  'track-request': async () =>
    withLocalService(async (service) =>
      (await import('./log-request.ts')).benchTrackRequestCalls(service.apiKey),
    ),
  latency: async () => (await import('./log-request.ts')).benchLogRequestLatency(),
  bundles: async () => (await import('./bundles.ts')).benchBundles(),
  'code-execution': async () => (await import('./code-execution.ts')).benchCodeExecution(),
  throughput: async () => (await import('./throughput.ts')).benchThroughput(),
  filters: async () => (await import('./filter-engine.ts')).benchFilterEngine(),
  'file-parser': async () => (await import('./file-parser.ts')).benchFileParser(),
  'skill-files': async () => (await import('./skill-files.ts')).benchSkillFiles(),
  prompts: async () => (await import('./prompts.ts')).benchPrompts(),
  search: async () => withLocalService(async () => (await import('./search.ts')).benchSearch()),
  datasets: async () => (await import('./datasets.ts')).benchDatasets(),
  traces: async () => withLocalService(async () => (await import('./traces.ts')).benchTraceCalls()),
  otlp: async () =>
    withLocalService(async (service) => (await import('./otlp.ts')).benchOtlpExports(service)),
  'traces-latency': async () => (await import('./traces.ts')).benchTraceLatency(),
  // No bus rules: the webhook fan-out, in the same process, would acknowledge the events and be counted.
  events: async () =>
    withLocalService(async (service) => (await import('./events.ts')).benchEventWrites(service.workspaceId), {
      eventRules: {},
    }),
  webhooks: async () =>
    withLocalService(async (service) =>
      (await import('./webhooks.ts')).benchWebhookDelivery(service.workspaceId, service),
    ),
  workflows: async () =>
    withLocalService(async (service) =>
      (await import('./workflows.ts')).benchWorkflows(service.workspaceId, service),
    ),
  reports: async () =>
    withLocalService(async (service) => (await import('./reports.ts')).benchReports(service)),
  folders: async () =>
    withLocalService(async (service) => (await import('./folders.ts')).benchFolders(service)),
  skills: async () => (await import('./skill-collections.ts')).benchSkillCollectionUpload(),
  replay: async () =>
    withLocalService(async (service) =>
      (await import('./replay.ts')).benchReplay(service.workspaceId, service),
    ),
  // No change consumers: the bench feeds the rollup consumer its synthetic records itself.
  analytics: async () =>
    withLocalService(
      async (service) => (await import('./analytics.ts')).benchAnalytics(service.workspaceId),
      {
        changeConsumers: {},
      },
    ),
  // The CLI in its own processes, against this section's table.
  keys: async () =>
    withLocalService(async (service) => (await import('./keys.ts')).benchKeysCommands(service)),
  ui: async () => withLocalService(async (service) => (await import('./ui.ts')).benchUi(service)),
  // No bus rules: monitors of the bench trigger nothing, and nothing else runs beside them.
  monitors: async () =>
    withLocalService(async () => (await import('./monitors.ts')).benchMonitorEvaluation(), {
      eventRules: {},
    }),
};

/** Runs a section against the local runtime's emulators (in memory), which set the functions' env. */
async function withLocalService(
  run: (service: {
    apiKey: string;
    workspaceId: number;
    baseUrl: string;
    dynamodbEndpoint: string;
    tableName: string;
    messaging: { idle(): Promise<void> };
  }) => Promise<BenchRow[]>,
  options: Partial<import('../local/service.ts').LocalServiceOptions> = {},
): Promise<BenchRow[]> {
  const { startLocalService } = await import('../local/service.ts');
  const service = await startLocalService({ port: 0, dataDir: null, ...options });
  try {
    return await run(service);
  } finally {
    await service.stop();
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const PROFILE_FLAG = '--profile';
const PROFILE_DIR = '.bench/profiles';
const profile = process.argv.includes(PROFILE_FLAG);
const wanted = process.argv.slice(2).filter((arg) => arg !== PROFILE_FLAG);
const unknown = wanted.filter((name) => !(name in SECTIONS));
if (unknown.length) {
  console.error(`Unknown section(s): ${unknown.join(', ')}. Sections: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
const ROWS_MARKER = 'BENCH_ROWS ';
const section = process.env.PROMPTOPS_BENCH_SECTION;

if (section) {
  // In the child: run one section and hand its rows to the parent on one line.
  const rows = await SECTIONS[section]!();
  process.stdout.write(`\n${ROWS_MARKER}${JSON.stringify(rows)}\n`);
  process.exit(0);
}

const rows: BenchRow[] = [];
for (const name of Object.keys(SECTIONS)) {
  if (wanted.length && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}...\n`);
  rows.push(...(await runInChild(name)));
}
console.table(rows.map((row) => ({ metric: row.name, value: row.value, target: row.target })));
process.exit(0);

async function runInChild(name: string): Promise<BenchRow[]> {
  const { spawn } = await import('node:child_process');
  const profiling = profile ? ['--cpu-prof', '--cpu-prof-dir', `${PROFILE_DIR}/${name}`] : [];
  const child = spawn(process.execPath, [...profiling, '--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, PROMPTOPS_BENCH_SECTION: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = out.split('\n').find((candidate) => candidate.startsWith(ROWS_MARKER));
  if (code !== 0 || !line) {
    return [{ name: `${name}: section failed (exit ${code})`, value: out.trim().slice(-300), target: '' }];
  }
  return JSON.parse(line.slice(ROWS_MARKER.length)) as BenchRow[];
}

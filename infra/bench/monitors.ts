import type { RolledUpRecord } from '#shared/analytics/facts.ts';
import { type BenchRow, fmt } from './support.ts';

/**
 * What evaluating monitors costs: DynamoDB reads per monitor per minute over the real rollups, for the
 * same monitors over a quiet workspace and a busy one (logs spread over 30 days, applied to the
 * rollups as the change-feed consumer applies them). The reads depend on the windows, not on traffic.
 */
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const NOW = Date.UTC(2026, 10, 28, 12, 0);
const TRAFFIC = [1_000, 20_000];
const USERS = 500;
/** The template a quarter of the logs are of (its version 1 labelled prod). */
const PROMPT = 'support-bot';

const MONITORS = [
  { name: 'cost, 24 h', metric: 'cost', window_minutes: 1440, threshold: 1e9 },
  {
    name: 'cost per user, 24 h',
    metric: 'cost',
    group_by: 'metadata.user_id',
    window_minutes: 1440,
    threshold: 1e9,
  },
  {
    name: 'error rate of a model, 5 min',
    metric: 'error_rate',
    filter: { dimension: 'model', value: 'gpt-4o' },
    window_minutes: 5,
    threshold: 1,
  },
  { name: 'latency p95, 30 days', metric: 'latency_p95', window_minutes: 43_200, threshold: 1e9 },
  {
    name: 'requests of support-bot:prod, 1 h',
    metric: 'requests',
    filter: { dimension: 'prompt_label', value: `${PROMPT}:prod` },
    window_minutes: 60,
    threshold: 1e9,
  },
];

export async function benchMonitorEvaluation(): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { applyLogChanges } = await import('#shared/analytics/rollup-store.ts');
  const { createMonitor } = await import('#shared/monitors/monitors.ts');
  const { createMonitorSchema } = await import('#shared/monitors/validation.ts');
  const { evaluateMonitor, evaluateMonitors } = await import('#shared/monitors/evaluate.ts');
  const { getMonitor } = await import('#shared/monitors/repository.ts');
  const { readMonitorWindow } = await import('#shared/monitors/rollup-reader.ts');
  const { publishPromptTemplate } = await import('#shared/prompts/publish.ts');
  const { publishBodySchema } = await import('#shared/prompts/schemas.ts');

  // Read calls and the items they answered.
  let reads = 0;
  let items = 0;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (/^(Query|GetItem|BatchGetItem)Command$/.test(String(context.commandName))) {
        reads++;
        const output = result.output as {
          Items?: unknown[];
          Item?: unknown;
          Responses?: Record<string, unknown[]>;
        };
        items +=
          output.Items?.length ??
          (output.Item ? 1 : Object.values(output.Responses ?? {}).reduce((n, list) => n + list.length, 0));
      }
      return result;
    },
    { step: 'initialize', name: 'benchMonitorReads' },
  );

  const rows: BenchRow[] = [];
  let sequence = 0;
  for (const [level, logs] of TRAFFIC.entries()) {
    const workspaceId = 50_000 + level;
    for (let start = 0; start < logs; start += 1_000) {
      const changes = Array.from({ length: Math.min(1_000, logs - start) }, (_, i) => {
        const n = start + i;
        const at = NOW - Math.floor((n / logs) * 30 * DAY) - MINUTE;
        const after: RolledUpRecord = {
          provider: 'openai',
          model: n % 2 ? 'gpt-4o' : 'gpt-4o-mini',
          tags: [],
          metadata: { user_id: `user-${n % USERS}` },
          prompt_id: null,
          prompt_name: n % 4 ? null : PROMPT,
          prompt_version_number: n % 4 ? null : 1,
          input_tokens: 500,
          output_tokens: 100,
          price: 0.002,
          status: n % 20 ? 'SUCCESS' : 'ERROR',
          error_type: n % 20 ? null : 'timeout',
          request_start_time: at,
          request_end_time: at + 300 + (n % 700),
        };
        return { shard: 'bench', sequence: String(++sequence), workspaceId, after };
      });
      const { failedSequences } = await applyLogChanges(changes);
      if (failedSequences.length) throw new Error('rollup writes failed');
    }
    await publishPromptTemplate(
      workspaceId,
      publishBodySchema.parse({
        prompt_template: { prompt_name: PROMPT },
        prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Hi' }] } },
        release_labels: ['prod'],
      }),
    );
    const perMonitor: string[] = [];
    let totalReads = 0;
    let totalItems = 0;
    for (const definition of MONITORS) {
      const { monitor } = await createMonitor(workspaceId, createMonitorSchema.parse(definition));
      const record = await getMonitor(workspaceId, monitor.id);
      if (!record) throw new Error('monitor not stored');
      // A first minute, then the measured one: what every minute after reads.
      await evaluateMonitor(record, readMonitorWindow, NOW);
      reads = 0;
      items = 0;
      await evaluateMonitor(record, readMonitorWindow, NOW + MINUTE);
      totalReads += reads;
      totalItems += items;
      perMonitor.push(`${definition.name}: ${reads}/${items}`);
    }
    rows.push({
      name: `monitors: DynamoDB reads per monitor per minute, ${logs.toLocaleString('en')} logs over 30 days`,
      value: `${fmt(totalReads / MONITORS.length, 1)} calls, ${fmt(totalItems / MONITORS.length, 1)} items (calls/items: ${perMonitor.join('; ')})`,
      target: 'the same at every traffic level',
    });
  }
  reads = 0;
  items = 0;
  const run = await evaluateMonitors(readMonitorWindow, NOW + 2 * MINUTE);
  rows.push({
    name: `monitors: one evaluation run over ${run.monitors} monitors`,
    value: `${reads} read calls (${run.indexQueries} of the active-monitor index), ${items} items`,
    target: 'index: 4 Queries per run',
  });
  return rows;
}

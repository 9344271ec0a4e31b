import type { DynamoDBRecord } from 'aws-lambda';
import { type BenchRow, countDynamoCalls, fmt, percentile } from './support.ts';

/**
 * Analytics: the change-feed consumer writing rollups from synthetic stream records (1,000,000 logs
 * over 30 days, in batches of the consumer's size, in time order, as the stream delivers them), then
 * the analytics answer and a monitor-style window read over those 30 days. Run against the local
 * emulators. BENCH_ANALYTICS_LOGS overrides the number of logs.
 */
const DAY = 86_400_000;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-pro', 'o3'];
const TAGS = ['prod', 'staging', 'batch', 'chat', 'agent', 'eval', 'beta', 'eu', 'us', 'mobile'];

function syntheticRecord(workspaceId: number, id: number, startMs: number, sequence: number): DynamoDBRecord {
  const model = MODELS[id % MODELS.length]!;
  const error = id % 50 === 0;
  const doc = {
    id,
    workspace_id: workspaceId,
    provider: model.startsWith('claude') ? 'anthropic' : model.startsWith('gemini') ? 'google' : 'openai',
    model,
    tags: [TAGS[id % TAGS.length]!, TAGS[(id >> 3) % TAGS.length]!],
    metadata: { user_id: `user-${id % 1000}`, env: ['prod', 'dev', 'test'][id % 3]! },
    prompt_id: 1 + (id % 20),
    prompt_name: `prompt-${1 + (id % 20)}`,
    prompt_version_number: 1 + (id % 3),
    input_tokens: 200 + (id % 900),
    output_tokens: 50 + (id % 300),
    price: 0.0001 * (1 + (id % 40)),
    status: error ? 'ERROR' : 'SUCCESS',
    error_type: error ? 'PROVIDER_TIMEOUT' : null,
    request_start_time: startMs,
    request_end_time: startMs + 150 + ((id * 7919) % 8000),
  };
  const keys = { PK: { S: `W#${workspaceId}#RL#${id}` }, SK: { S: 'RL' } };
  return {
    eventName: 'INSERT',
    eventSourceARN: 'arn:aws:dynamodb:local:000000000000:table/bench/stream/bench',
    dynamodb: {
      Keys: keys,
      NewImage: { ...keys, doc: { S: JSON.stringify(doc) } },
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

export async function benchAnalytics(workspaceId: number): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { handler } = await import('#functions/changes/request-log-rollups.ts');
  const { ANALYTICS_CHANGE_CONSUMERS } = await import('../routes/analytics.ts');
  const { requestAnalytics } = await import('#shared/analytics/analytics.ts');
  const { planAnalytics, rollupData } = await import('#shared/analytics/analytics-query.ts');
  const { readRollupWindow } = await import('#shared/analytics/rollup-query.ts');
  const logs = Number(process.env.BENCH_ANALYTICS_LOGS ?? 1_000_000);
  const batchSize = ANALYTICS_CHANGE_CONSUMERS['request-log-rollups']!.batchSize;
  const now = Date.now();
  const from = now - 30 * DAY;
  const step = (now - from) / logs;
  const counter = countDynamoCalls(documentClient());

  const started = performance.now();
  let recentLogs = 0;
  let recentWrites = 0;
  for (let first = 0; first < logs; first += batchSize) {
    const records: DynamoDBRecord[] = [];
    for (let id = first; id < Math.min(logs, first + batchSize); id++) {
      records.push(syntheticRecord(workspaceId, id + 1, Math.floor(from + id * step), id + 1));
    }
    const before = counter.get('PutItemCommand');
    const answer = await handler({ Records: records, shardId: 'bench-shard' } as never);
    if (answer.batchItemFailures.length > 0) throw new Error('The consumer reported failed changes');
    if (from + first * step >= now - 2 * DAY) {
      recentLogs += records.length;
      recentWrites += counter.get('PutItemCommand') - before;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const writes = counter.get('PutItemCommand');

  const body = {
    filter_group: {
      logic: 'AND',
      filters: [{ field: 'request_start_time', operator: 'between', value: [from, now] }],
    },
  } as const;
  const plan = planAnalytics(body as never, now);
  const { itemsRead } = await rollupData(workspaceId, plan, now);
  const timings: number[] = [];
  let total = 0;
  for (let run = 0; run < 15; run++) {
    const t = performance.now();
    total = (await requestAnalytics(workspaceId, body as never, now)).totalRequests;
    timings.push(performance.now() - t);
  }
  if (total !== logs) throw new Error(`Analytics counted ${total} requests of ${logs}`);
  const windowTimings: number[] = [];
  let windowItems = 0;
  for (let run = 0; run < 15; run++) {
    const t = performance.now();
    const answer = await readRollupWindow(
      workspaceId,
      { fromMs: from, toMs: now },
      { groupBy: 'metadata.user_id', nowMs: now },
    );
    windowItems = answer.itemsRead;
    windowTimings.push(performance.now() - t);
  }
  return [
    {
      name: `rollup consumer: logs/s (${fmt(logs, 0)} synthetic logs over 30 days, batches of ${batchSize})`,
      value: fmt(logs / seconds, 0),
      target: 'printed',
    },
    {
      name: 'rollup consumer: DynamoDB writes per 1,000 logs (all / last 2 days, with 5-minute buckets)',
      value: `${fmt((writes / logs) * 1000, 1)} / ${fmt((recentWrites / Math.max(1, recentLogs)) * 1000, 1)}`,
      target: '<= 50',
    },
    {
      name: 'analytics over 30 days: p50 / p95 ms (items read)',
      value: `${fmt(percentile(timings, 50), 0)} / ${fmt(percentile(timings, 95), 0)} (${itemsRead})`,
      target: 'p50 < 1000 ms; a few hundred items',
    },
    {
      name: 'readRollupWindow 30 days by metadata.user_id: p50 ms (items read)',
      value: `${fmt(percentile(windowTimings, 50), 0)} (${windowItems})`,
      target: 'printed',
    },
  ];
}

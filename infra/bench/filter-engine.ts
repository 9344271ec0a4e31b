/**
 * Throughput of the request-log filter engine over 100,000 in-memory records: a realistic compiled
 * filter (time range AND tag AND metadata AND (status OR cost)), then free text `q`, which pays for
 * extracting and lowercasing the texts of every record (derived values live for one record evaluation).
 */
import { compileFilter, type FilterGroup } from '#shared/request-logs/filters.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

const RECORDS = 100_000;
const RUNS = 7;
const TARGET_DOCS_PER_S = 1_000_000;
const BASE = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

/** mulberry32: a small seeded generator, so every run filters the same records. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const TAGS = ['prod', 'staging', 'eu', 'us', 'batch', 'chat', 'beta', 'vip'];
const ENVS = ['production', 'staging', 'development'];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'gemini-2.5-pro'];
const QUESTIONS = [
  'Summarise the following support ticket in two sentences.',
  'Translate the product description into French.',
  'Classify the sentiment of this review as positive, negative or neutral.',
  'Extract the invoice number and total amount as JSON.',
  'Write a polite reply declining the meeting invitation.',
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function generate(count: number): RequestLogRecord[] {
  const rand = random(20_240_501);
  const records: RequestLogRecord[] = [];
  for (let i = 0; i < count; i++) {
    const start = BASE + Math.floor(rand() * 30 * DAY);
    const roll = rand();
    const status = roll < 0.85 ? 'SUCCESS' : roll < 0.95 ? 'WARNING' : 'ERROR';
    const question = pick(rand, QUESTIONS);
    const answer = question.includes('JSON')
      ? `{"invoice": "INV-${i}", "total": ${(rand() * 1000).toFixed(2)}}`
      : `Here is the answer to request ${i}: ${question.toLowerCase()} Done.`;
    const tags = TAGS.filter(() => rand() < 0.3);
    records.push({
      id: i + 1,
      workspace_id: 1,
      provider: 'openai',
      model: pick(rand, MODELS),
      api_type: 'chat-completions',
      function_name: 'openai.chat.completions.create',
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You are a careful assistant.' }] },
          { role: 'user', content: [{ type: 'text', text: `${question} Ticket #${i}.` }] },
        ],
      },
      output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: answer }] }] },
      parameters: { temperature: 0.2 },
      tags,
      metadata: {
        env: pick(rand, ENVS),
        user_id: `u-${i % 5000}`,
        feature: pick(rand, ['search', 'support']),
      },
      prompt_id: 1 + (i % 50),
      prompt_name: `prompt-${1 + (i % 50)}`,
      prompt_version_number: 1 + (i % 4),
      prompt_input_variables: { ticket: String(i) },
      input_tokens: 50 + Math.floor(rand() * 2000),
      output_tokens: 10 + Math.floor(rand() * 500),
      price: rand() * 0.05,
      score: 0,
      scores: {},
      status,
      error_type: status === 'SUCCESS' ? null : 'PROVIDER_ERROR',
      error_message: null,
      request_start_time: start,
      request_end_time: start + 200 + Math.floor(rand() * 5000),
      created_at: start + 6000,
    });
  }
  return records;
}

const REALISTIC: FilterGroup = {
  logic: 'AND',
  filters: [
    { field: 'request_start_time', operator: 'between', value: ['2024-01-05T00:00:00Z', 1_705_708_800] },
    { field: 'tags', operator: 'contains', value: 'prod' },
    { field: 'metadata', operator: 'key_equals', nested_key: 'env', value: 'production' },
    {
      logic: 'OR',
      filters: [
        { field: 'status', operator: 'is', value: 'ERROR' },
        { field: 'cost', operator: 'gt', value: 0.02 },
      ],
    },
  ],
};

/** Median docs/s over RUNS passes. */
function measure(
  records: RequestLogRecord[],
  matches: (r: RequestLogRecord) => boolean,
): { docsPerS: number; matched: number } {
  const rates: number[] = [];
  let matched = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    matched = 0;
    for (const record of records) if (matches(record)) matched++;
    rates.push(records.length / ((performance.now() - started) / 1000));
  }
  rates.sort((a, b) => a - b);
  return { docsPerS: rates[Math.floor(rates.length / 2)]!, matched };
}

const format = (docsPerS: number) => `${(docsPerS / 1_000_000).toFixed(2)}M docs/s`;

export async function benchFilterEngine(): Promise<{ name: string; value: string; target: string }[]> {
  const records = generate(RECORDS);
  const target = `>= ${format(TARGET_DOCS_PER_S)}`;
  const realistic = measure(records, compileFilter(REALISTIC).matches);
  const text = measure(records, compileFilter(null, 'INVOICE NUMBER').matches);
  return [
    {
      name: `filter engine, ${RECORDS} records, time AND tag AND metadata AND (status OR cost) (${realistic.matched} matched)`,
      value: format(realistic.docsPerS),
      target,
    },
    {
      name: `filter engine, ${RECORDS} records, q free text over input and output (${text.matched} matched)`,
      value: format(text.docsPerS),
      target,
    },
  ];
}

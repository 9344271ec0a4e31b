import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';
import { costOf, type PricedRequest } from '#shared/costs/cost.ts';
import type { ModelPriceOverride } from '#shared/costs/overrides.ts';
import {
  PRICE_TABLE_PACKAGE,
  PRICE_TABLE_SOURCE,
  PRICE_TABLE_VERSION,
  tablePrices,
} from '#shared/costs/price-table.ts';
import { priceUsage } from '#shared/costs/pricing.ts';
import type { Usage } from '#shared/request-logs/record.ts';

/** Costs from usage: the price table (its tiers and cache prices), overrides and the client's price. */
const usage = (counts: Partial<Usage>): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  ...counts,
});

const request = (model: string, provider: string, counts: Partial<Usage>, price = 0): PricedRequest => ({
  model,
  provider,
  usage: usage(counts),
  price,
  startedAt: Date.parse('2026-01-15T10:00:00Z'),
});

const none = async () => new Map<string, ModelPriceOverride>();

describe('the price table', () => {
  it('records the version of the installed package', () => {
    const manifest = join(REPO_ROOT, 'node_modules', PRICE_TABLE_PACKAGE, 'package.json');
    const installed = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    expect(PRICE_TABLE_VERSION).toBe(installed.version);
    expect(PRICE_TABLE_SOURCE).toBe(`price_table@${installed.version}`);
  });

  it('prices gpt-4o: 1M in + 1M out = $12.50; with 500k of the input cached = $11.875', async () => {
    expect(
      await costOf(request('gpt-4o', 'openai', { input_tokens: 1e6, output_tokens: 1e6 }), none),
    ).toEqual({
      total: 12.5,
      input: 2.5,
      cached_input: 0,
      cache_write: 0,
      output: 10,
      reasoning: 0,
      source: PRICE_TABLE_SOURCE,
      priced_as: 'gpt-4o',
    });
    const cached = await costOf(
      request('gpt-4o', 'openai', { input_tokens: 1e6, cache_read_tokens: 5e5, output_tokens: 1e6 }),
      none,
    );
    expect(cached).toMatchObject({ total: 11.875, input: 1.25, cached_input: 0.625, output: 10 });
  });

  it('prices claude-sonnet-4-5 over 200k input tokens at its upper tier, cache reads and writes included', async () => {
    const counts = {
      input_tokens: 250_000,
      cache_read_tokens: 100_000,
      cache_write_tokens: 10_000,
      output_tokens: 1000,
    };
    const cost = await costOf(request('claude-sonnet-4-5-20250929', 'anthropic', counts), none);
    // 140k uncached x $6 + 100k read x $0.60 + 10k written x $7.50 + 1k out x $22.50 (per million).
    expect(cost).toEqual({
      total: 0.9975,
      input: 0.84,
      cached_input: 0.06,
      cache_write: 0.075,
      output: 0.0225,
      reasoning: 0,
      source: PRICE_TABLE_SOURCE,
      priced_as: 'claude-sonnet-4-5',
    });
    // The same usage under 200k is priced at the base tier.
    const below = await costOf(
      request('claude-sonnet-4-5', 'anthropic', { input_tokens: 150_000, output_tokens: 1000 }),
      none,
    );
    expect(below.total).toBe(0.465);
  });

  it("agrees with the package's own total on the models and usages the tests log", async () => {
    const cases: [string, string, Partial<Usage>][] = [
      ['gpt-4o-mini', 'openai', { input_tokens: 12_345, cache_read_tokens: 2048, output_tokens: 678 }],
      [
        'claude-sonnet-4-5',
        'anthropic',
        {
          input_tokens: 250_000,
          cache_read_tokens: 100_000,
          cache_write_tokens: 10_000,
          output_tokens: 1000,
        },
      ],
      ['o3', 'openai', { input_tokens: 5000, output_tokens: 3000, reasoning_tokens: 2000 }],
      [
        'claude-sonnet-4-5',
        'anthropic',
        { input_tokens: 20_000, cache_write_tokens: 10_000, cache_write_1h_tokens: 6000, output_tokens: 100 },
      ],
    ];
    for (const [model, provider, counts] of cases) {
      const ours = await costOf(request(model, provider, counts), none);
      const { reasoning_tokens, ...rest } = usage(counts);
      const theirs = calcPrice({ ...rest, output_reasoning_tokens: reasoning_tokens }, model, {
        providerId: provider,
      });
      expect(ours.total).toBeCloseTo(theirs!.total_price, 12);
    }
  });

  it('prices the cache writes kept an hour at their own price, the others at the 5-minute one', async () => {
    const cost = await costOf(
      request('claude-sonnet-4-5', 'anthropic', {
        input_tokens: 200_000,
        cache_write_tokens: 200_000,
        cache_write_1h_tokens: 80_000,
      }),
      none,
    );
    // Below the 200k tier: 120k at $3.75 and 80k at $6 per million (2x the input price).
    expect(cost).toMatchObject({ input: 0, cache_write: 0.93, total: 0.93 });
  });

  it('prices reasoning at the output price, as its own part', async () => {
    const cost = await costOf(
      request('o3', 'openai', { input_tokens: 0, output_tokens: 3000, reasoning_tokens: 2000 }),
      none,
    );
    expect(cost).toMatchObject({ output: 0.008, reasoning: 0.016, total: 0.024 });
  });

  it('gives a model the table does not know cost 0 and says so', async () => {
    expect(
      await costOf(request('acme-llm-7b', 'acme', { input_tokens: 1e6, output_tokens: 1e6 }), none),
    ).toEqual({
      total: 0,
      input: 0,
      cached_input: 0,
      cache_write: 0,
      output: 0,
      reasoning: 0,
      source: 'unknown_model',
      priced_as: null,
    });
    expect(await tablePrices('acme-llm-7b', 'openai', new Date())).toBeUndefined();
  });
});

describe('the order of sources', () => {
  const override: ModelPriceOverride = {
    model: 'GPT-4o',
    provider: null,
    usd_per_million_tokens: { input: 1, cached_input: 0.1, cache_write: 1, output: 2, reasoning: 2 },
    updated_at: 0,
  };
  const overrides = async () => new Map([['gpt-4o', override]]);

  it("the client's price wins, and the overrides are not even read", async () => {
    let read = false;
    const cost = await costOf(request('gpt-4o', 'openai', { input_tokens: 1e6 }, 0.42), async () => {
      read = true;
      return new Map();
    });
    expect(cost).toMatchObject({ total: 0.42, input: 0, source: 'client', priced_as: null });
    expect(read).toBe(false);
  });

  it('a workspace override wins over the table (the model matched ignoring case)', async () => {
    const cost = await costOf(
      request('gpt-4o', 'openai', { input_tokens: 1e6, cache_read_tokens: 5e5, output_tokens: 1e6 }),
      overrides,
    );
    expect(cost).toEqual({
      total: 2.55,
      input: 0.5,
      cached_input: 0.05,
      cache_write: 0,
      output: 2,
      reasoning: 0,
      source: 'workspace_override',
      priced_as: 'GPT-4o',
    });
  });

  it('an override for another provider does not apply', async () => {
    const azure = async () => new Map([['gpt-4o', { ...override, provider: 'azure' }]]);
    const cost = await costOf(request('gpt-4o', 'openai', { input_tokens: 1e6 }), azure);
    expect(cost.source).toBe(PRICE_TABLE_SOURCE);
  });

  it('parts always sum to the total', () => {
    const cost = priceUsage(
      usage({
        input_tokens: 333_333,
        cache_read_tokens: 111_111,
        cache_write_tokens: 7,
        output_tokens: 99_999,
        reasoning_tokens: 33_333,
      }),
      { input: { base: 3, tiers: [{ start: 200_000, price: 6 }] }, cached_input: 0.3, output: 15 },
      'workspace_override',
      'x',
    );
    expect(cost.input + cost.cached_input + cost.cache_write + cost.output + cost.reasoning).toBeCloseTo(
      cost.total,
      12,
    );
  });
});

import { PRICE_TABLE_SOURCE, tablePrices } from '#shared/costs/price-table.ts';
import { priceUsage } from '#shared/costs/pricing.ts';

/**
 * A function that prices, for the bundle test: bundled as the stack bundles it and run from its asset
 * alone, it must find the price table the `afterBundling` hook copied beside it.
 */
export async function handler() {
  const table = await tablePrices('gpt-4o', 'openai', new Date('2026-01-15T00:00:00Z'));
  if (!table) throw new Error('gpt-4o is not in the price table');
  const usage = {
    input_tokens: 1_000_000,
    output_tokens: 1_000_000,
    cache_read_tokens: 500_000,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
  return priceUsage(usage, table.prices, PRICE_TABLE_SOURCE, table.model);
}

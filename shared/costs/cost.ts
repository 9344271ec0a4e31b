import { type ModelPriceOverride, overrideFor } from './overrides.ts';
import { PRICE_TABLE_SOURCE, tablePrices } from './price-table.ts';
import { type CostBreakdown, priceUsage, type Usage, unpricedCost } from './pricing.ts';

/**
 * What a request cost (DESIGN.md 13, docs/cost.md): the client's price when it sent one (`price` > 0);
 * else the workspace's override for the model; else the bundled price table; else 0 with source
 * `unknown_model`, never a guess.
 */
export interface PricedRequest {
  model: string;
  provider: string;
  usage: Usage;
  /** The client's `price` (0 when it sent none). */
  price: number;
  /** When the request started (epoch ms): the table's prices of that date apply. */
  startedAt: number;
}

export async function costOf(
  request: PricedRequest,
  /** Read only when the client sent no price. */
  overrides: () => Promise<ReadonlyMap<string, ModelPriceOverride>>,
): Promise<CostBreakdown> {
  if (request.price > 0) return unpricedCost(request.price, 'client');
  const override = overrideFor(await overrides(), request.model, request.provider);
  if (override)
    return priceUsage(request.usage, override.usd_per_million_tokens, 'workspace_override', override.model);
  const table = await tablePrices(request.model, request.provider, new Date(request.startedAt));
  if (table) return priceUsage(request.usage, table.prices, PRICE_TABLE_SOURCE, table.model);
  return unpricedCost(0, 'unknown_model');
}

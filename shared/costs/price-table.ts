import { onDemand } from '#shared/platform/on-demand.ts';
import type { Price, PricesPerMillion } from './pricing.ts';

/**
 * The bundled price table, `@pydantic/genai-prices` (MIT, offline). Its data minifies to ~480 KB, more
 * than log-request's whole bundle, so it is not bundled: the package is external (infra/bundling.ts) and
 * copied beside the bundle of every function that prices, and it is imported on the first log that needs
 * it, once per container (docs/cost.md). `updatePrices` is never called: prices never come from the
 * network at run time, only with a new package version (and then a recompute rewrites older logs).
 */
export const PRICE_TABLE_PACKAGE = '@pydantic/genai-prices';
/** The installed version (a test holds it to the package's own); recorded in every cost it priced. */
export const PRICE_TABLE_VERSION = '0.1.8';
export const PRICE_TABLE_SOURCE = `price_table@${PRICE_TABLE_VERSION}` as const;

type PriceTable = typeof import('@pydantic/genai-prices');

/** The package, imported once; a failed import is tried again by the next log. */
const loadTable: () => Promise<PriceTable> = onDemand(() => import('@pydantic/genai-prices'));

/** The table's keys (per million tokens) for the parts a cost has. */
const TABLE_KEYS: Record<keyof PricesPerMillion, string> = {
  input: 'input_mtok',
  cached_input: 'cache_read_mtok',
  cache_write: 'cache_write_mtok',
  cache_write_1h: 'cache_write_1h_mtok',
  output: 'output_mtok',
  reasoning: 'output_reasoning_mtok',
  input_audio: 'input_audio_mtok',
  output_audio: 'output_audio_mtok',
  input_image: 'input_image_mtok',
};

export interface TablePrices {
  /** The table's model id the prices are for (e.g. `claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
  model: string;
  prices: PricesPerMillion;
}

/**
 * The table's prices for a model at a time (prices change on dates). The log's provider picks the
 * table's provider when the table knows it (`openai`, `anthropic`, `google`...), else the model's name
 * does; undefined when the table has no such model.
 */
export async function tablePrices(
  model: string,
  provider: string,
  at: Date,
): Promise<TablePrices | undefined> {
  const { calcPrice, findProvider } = await loadTable();
  const providerId = findProvider({ providerId: provider }) ? provider : undefined;
  // A provider the table knows but whose models do not include this one (a proxy): the name decides.
  const found =
    calcPrice({}, model, { providerId, timestamp: at }) ??
    (providerId ? calcPrice({}, model, { timestamp: at }) : null);
  if (!found) return undefined;
  const prices: PricesPerMillion = {};
  for (const [part, key] of Object.entries(TABLE_KEYS) as [keyof PricesPerMillion, string][]) {
    const price = found.model_price[key];
    if (price !== undefined) prices[part] = price as Price;
  }
  return { model: found.model.id, prices };
}

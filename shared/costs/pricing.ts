/**
 * Token usage in the OpenTelemetry GenAI meaning: `input_tokens` includes the cached and cache-written
 * tokens, `output_tokens` includes the reasoning tokens; the subsets stand beside their totals
 * (cache_read + cache_write <= input, reasoning <= output, checked at write).
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** Of the cache writes, those kept an hour (Anthropic's `ttl: "1h"`), priced higher than 5-minute ones. */
  cache_write_1h_tokens?: number;
  input_audio_tokens?: number;
  output_audio_tokens?: number;
  input_image_tokens?: number;
}

/** Where a cost came from: the client's price, the bundled price table (its version), an override, or nothing. */
export type CostSource = 'client' | `price_table@${string}` | 'workspace_override' | 'unknown_model';

/**
 * A cost in USD and its parts: `total` = input + cached_input + cache_write + output + reasoning (each
 * part prices only its own tokens: `input` the uncached input, `output` the non-reasoning output). A
 * client's price has no parts (all 0 but total).
 */
export interface CostBreakdown {
  total: number;
  input: number;
  cached_input: number;
  cache_write: number;
  output: number;
  reasoning: number;
  source: CostSource;
  /** The price entry applied: the table's model id, or the override's model; null for client and unknown. */
  priced_as: string | null;
}

/**
 * A cost from usage and per-million-token prices: pure arithmetic, the same for the price table and for a
 * workspace's override. Each part prices only its own tokens, so nothing is counted twice:
 *
 *   input        = (input - cache reads - cache writes - separately priced audio/image) x input price
 *                  + audio x audio price + image x image price
 *   cached_input = cache reads x cached-input price (the input price when the entry has none)
 *   cache_write  = cache writes x cache-write price (the input price when the entry has none), of which
 *                  the writes kept an hour at the 1-hour cache-write price (the cache-write price if none)
 *   output       = (output - reasoning - separately priced audio) x output price + audio x audio price
 *   reasoning    = reasoning x reasoning price (the output price when the entry has none)
 *
 * A tiered price (Claude's over-200k-token rate) applies the tier of the request's whole input tokens to
 * every part, as the price table does.
 */
export interface Tier {
  start: number;
  price: number;
}
export type Price = number | { base: number; tiers: readonly Tier[] };

/** USD per million tokens; absent parts fall back as described above (input and output to 0). */
export interface PricesPerMillion {
  input?: Price;
  cached_input?: Price;
  cache_write?: Price;
  cache_write_1h?: Price;
  output?: Price;
  reasoning?: Price;
  input_audio?: Price;
  output_audio?: Price;
  input_image?: Price;
}

/** USD amounts are kept to 1e-12: enough for a token of any model, and free of float noise (0.97499999...). */
export const roundUsd = (usd: number) => Math.round(usd * 1e12) / 1e12;

/** The rate of `price` for a request of `inputTokens` input tokens: the last tier whose start it exceeds. */
export function rateFor(price: Price | undefined, inputTokens: number): number {
  if (price === undefined) return 0;
  if (typeof price === 'number') return price;
  let rate = price.base;
  for (const tier of price.tiers) if (inputTokens > tier.start) rate = tier.price;
  return rate;
}

export function priceUsage(
  usage: Usage,
  prices: PricesPerMillion,
  source: CostSource,
  pricedAs: string,
): CostBreakdown {
  const input = usage.input_tokens;
  const rate = (price: Price | undefined, fallback?: Price) => rateFor(price ?? fallback, input);
  const usd = (tokens: number, perMillion: number) => (Math.max(0, tokens) * perMillion) / 1e6;
  const ownPriced = (tokens: number | undefined, price: Price | undefined) =>
    price === undefined ? 0 : (tokens ?? 0);
  const inputAudio = ownPriced(usage.input_audio_tokens, prices.input_audio);
  const inputImage = ownPriced(usage.input_image_tokens, prices.input_image);
  const outputAudio = ownPriced(usage.output_audio_tokens, prices.output_audio);
  const hourWrites = Math.min(usage.cache_write_1h_tokens ?? 0, usage.cache_write_tokens);
  const writeRate = rate(prices.cache_write, prices.input);
  const uncached = input - usage.cache_read_tokens - usage.cache_write_tokens - inputAudio - inputImage;
  const parts = {
    input: roundUsd(
      usd(uncached, rate(prices.input)) +
        usd(inputAudio, rate(prices.input_audio)) +
        usd(inputImage, rate(prices.input_image)),
    ),
    cached_input: roundUsd(usd(usage.cache_read_tokens, rate(prices.cached_input, prices.input))),
    cache_write: roundUsd(
      usd(usage.cache_write_tokens - hourWrites, writeRate) +
        usd(hourWrites, prices.cache_write_1h === undefined ? writeRate : rate(prices.cache_write_1h)),
    ),
    output: roundUsd(
      usd(usage.output_tokens - usage.reasoning_tokens - outputAudio, rate(prices.output)) +
        usd(outputAudio, rate(prices.output_audio)),
    ),
    reasoning: roundUsd(usd(usage.reasoning_tokens, rate(prices.reasoning, prices.output))),
  };
  const total = roundUsd(
    parts.input + parts.cached_input + parts.cache_write + parts.output + parts.reasoning,
  );
  return { total, ...parts, source, priced_as: pricedAs };
}

/** A cost with no parts: the client's price, or 0 for a model nothing prices. */
export const unpricedCost = (total: number, source: 'client' | 'unknown_model'): CostBreakdown => ({
  total,
  input: 0,
  cached_input: 0,
  cache_write: 0,
  output: 0,
  reasoning: 0,
  source,
  priced_as: null,
});

import { MAX_EPOCH_MS } from '#shared/platform/time.ts';

/**
 * Span times: nanoseconds since the Unix epoch, as OpenTelemetry keeps them. The JavaScript SDK sends
 * them as decimal strings (a double cannot hold today's nanoseconds exactly); other clients send JSON
 * integers. Both parse losslessly to a BigInt; answers give ISO 8601 times (milliseconds, what a Date
 * holds), the exact nanoseconds as a decimal string, and durations in milliseconds with the sub-millisecond
 * part kept as a fraction.
 */

/** The last nanosecond of year 9999: beyond it an ISO 8601 answer cannot be written. */
export const MAX_EPOCH_NS = BigInt(MAX_EPOCH_MS) * 1_000_000n + 999_999n;

const DIGITS = /^\d{1,21}$/;

/**
 * Nanoseconds since the epoch from a JSON value: a non-negative integer, or a string of decimal digits.
 * Undefined for anything else (fractions, negatives, exponents in strings, values after year 9999).
 */
export function parseNanos(value: unknown): bigint | undefined {
  let ns: bigint;
  if (typeof value === 'string') {
    if (!DIGITS.test(value)) return undefined;
    ns = BigInt(value);
  } else if (typeof value === 'number') {
    // A JSON integer above 2^53 has already been rounded by JSON.parse; BigInt keeps the value it got.
    if (!Number.isInteger(value) || value < 0) return undefined;
    ns = BigInt(value);
  } else {
    return undefined;
  }
  return ns <= MAX_EPOCH_NS ? ns : undefined;
}

const NS_PER_MS = 1_000_000n;

/** ISO 8601 UTC with milliseconds; the nanoseconds below the millisecond are dropped. */
export function nanosToIso(ns: bigint): string {
  return new Date(Number(ns / NS_PER_MS)).toISOString();
}

/**
 * Milliseconds between two instants, exact to the nanosecond for any duration under 104 days (2^53 ns),
 * which is every span a real program produces.
 */
export function durationMs(startNs: bigint, endNs: bigint): number {
  // One correctly rounded division: 1234567 ns is 1.234567 ms, not 1 + 0.234567 with its rounding error.
  return Number(endNs - startNs) / 1e6;
}

/** Nanoseconds as epoch milliseconds (what request logs store), truncated. */
export const nanosToMs = (ns: bigint): number => Number(ns / NS_PER_MS);

import { describe, expect, it } from 'vitest';
import { durationMs, MAX_EPOCH_NS, nanosToIso, parseNanos } from '#shared/traces/span-time.ts';

describe('parseNanos', () => {
  it.each([
    ['a string of digits, exactly', '1700000000123456789', 1_700_000_000_123_456_789n],
    ['zero', '0', 0n],
    ['a safe JSON integer', 1_700_000_000, 1_700_000_000n],
    // JSON.parse has already rounded it; BigInt keeps the double it got, with no further loss.
    ['a JSON integer beyond 2^53', 1630000001000000000, 1_630_000_001_000_000_000n],
    ['the reference example 1.63e18', 1.63e18, 1_630_000_000_000_000_000n],
    ['the last nanosecond of year 9999', MAX_EPOCH_NS.toString(), MAX_EPOCH_NS],
  ])('reads %s', (_, value, expected) => {
    expect(parseNanos(value)).toBe(expected);
  });

  it.each([
    ['a fraction', 1.5],
    ['a negative number', -1],
    ['a negative string', '-1'],
    ['an exponent in a string', '1.7e18'],
    ['a decimal point in a string', '17.5'],
    ['an empty string', ''],
    ['spaces', ' 17 '],
    ['more than 21 digits', '1'.repeat(22)],
    ['a time after year 9999', (MAX_EPOCH_NS + 1n).toString()],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
    ['null', null],
    ['a boolean', true],
    ['an object', { seconds: 1 }],
  ])('refuses %s', (_, value) => {
    expect(parseNanos(value)).toBeUndefined();
  });
});

describe('nanosToIso and durationMs', () => {
  it('answers ISO 8601 with milliseconds, dropping the nanoseconds below', () => {
    expect(nanosToIso(1_700_000_000_123_456_789n)).toBe('2023-11-14T22:13:20.123Z');
    expect(nanosToIso(0n)).toBe('1970-01-01T00:00:00.000Z');
    expect(nanosToIso(MAX_EPOCH_NS)).toBe('9999-12-31T23:59:59.999Z');
  });

  it('keeps sub-millisecond durations as a fraction, exactly', () => {
    const start = 1_700_000_000_000_000_000n;
    expect(durationMs(start, start + 1_234_567n)).toBe(1.234567);
    expect(durationMs(start, start + 1n)).toBe(0.000001);
    expect(durationMs(start, start)).toBe(0);
    expect(durationMs(start, start + 3_600_000_000_000n)).toBe(3_600_000);
  });
});

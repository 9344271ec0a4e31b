import { afterEach, describe, expect, it } from 'vitest';
import { formatDuration, formatTime } from './time.ts';

/** Runs in Node under vitest (vitest.config.ts includes ui/src tests); the zone is set per test. */
declare const process: { env: Record<string, string | undefined> };
const zone = process.env.TZ;
afterEach(() => {
  process.env.TZ = zone;
});

describe('the time formatter', () => {
  const instant = '2026-11-28T15:04:05.678Z';

  it('shows UTC with its name, seconds by default, milliseconds when asked', () => {
    expect(formatTime(instant, 'utc')).toBe('2026-11-28 15:04:05 UTC');
    expect(formatTime(instant, 'utc', 'ms')).toBe('2026-11-28 15:04:05.678 UTC');
    expect(formatTime(Date.parse(instant), 'utc')).toBe('2026-11-28 15:04:05 UTC');
  });

  it("shows local time in the browser's zone with its offset", () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(formatTime(instant, 'local')).toBe('2026-11-28 20:34:05 +05:30');
    process.env.TZ = 'America/New_York';
    expect(formatTime(instant, 'local')).toBe('2026-11-28 10:04:05 -05:00');
  });

  it('shows nothing for no time and an unreadable value as it came', () => {
    expect(formatTime(null, 'utc')).toBe('');
    expect(formatTime('', 'utc')).toBe('');
    expect(formatTime('yesterday-ish', 'utc')).toBe('yesterday-ish');
  });

  it('formats durations for people', () => {
    expect(formatDuration(850.4)).toBe('850 ms');
    expect(formatDuration(2345)).toBe('2.35 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(null)).toBe('');
  });
});

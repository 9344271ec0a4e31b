import { createStore, persisted, useStore } from './store.ts';

/**
 * The one time formatter of the dashboard: every time shown goes through `formatTime`, in UTC or in
 * the browser's time zone as the header's switch says (kept on this device).
 */
export type TimeZoneMode = 'utc' | 'local';

const SETTING = 'promptops.timeZone';
export const timeZoneMode = createStore<TimeZoneMode>(persisted.read(SETTING) === 'local' ? 'local' : 'utc');

export function setTimeZoneMode(mode: TimeZoneMode): void {
  persisted.write(SETTING, mode);
  timeZoneMode.set(mode);
}

export const useTimeZoneMode = (): TimeZoneMode => useStore(timeZoneMode);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `2026-11-28 15:04:05 UTC` or, in local mode, the same in the browser's zone with its offset
 * (`2026-11-28 16:04:05 +01:00`). `precision: 'ms'` adds milliseconds (span timings). An unparsable
 * value is shown as it came.
 */
export function formatTime(
  value: string | number | Date | null | undefined,
  mode: TimeZoneMode = timeZoneMode.get(),
  precision: 's' | 'ms' = 's',
): string {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const utc = mode === 'utc';
  const parts = utc
    ? [
        date.getUTCFullYear(),
        date.getUTCMonth() + 1,
        date.getUTCDate(),
        date.getUTCHours(),
        date.getUTCMinutes(),
        date.getUTCSeconds(),
        date.getUTCMilliseconds(),
      ]
    : [
        date.getFullYear(),
        date.getMonth() + 1,
        date.getDate(),
        date.getHours(),
        date.getMinutes(),
        date.getSeconds(),
        date.getMilliseconds(),
      ];
  const [year, month, day, hours, minutes, seconds, ms] = parts as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const time = `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${precision === 'ms' ? `.${pad(ms, 3)}` : ''}`;
  return `${year}-${pad(month)}-${pad(day)} ${time} ${utc ? 'UTC' : offsetOf(date)}`;
}

function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A duration for people: `850 ms`, `2.35 s`, `3 min 5 s`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Re-renders the caller when the switch changes; returns a formatter bound to the current mode. */
export function useFormatTime(): (
  value: string | number | Date | null | undefined,
  precision?: 's' | 'ms',
) => string {
  const mode = useTimeZoneMode();
  return (value, precision = 's') => formatTime(value, mode, precision);
}

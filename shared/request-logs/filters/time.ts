import { isEpochMilliseconds, MAX_EPOCH_MS } from '#shared/platform/time.ts';

/**
 * A time value of a filter read as the span it names, [start, end) in epoch ms: a date names its UTC day,
 * a date-time without seconds its minute, with seconds its second, with a fraction its millisecond;
 * epoch seconds name their second, or their millisecond when fractional; epoch milliseconds (numbers above
 * EPOCH_MS_THRESHOLD) name their millisecond. So `is "2024-05-01"` is that day, and a timestamp copied
 * from an API answer (ISO with milliseconds, or `Date.now()`) matches exactly.
 */
export interface TimeSpan {
  start: number;
  end: number;
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

const DAY = 86_400_000;

export function parseTimeSpan(value: unknown): TimeSpan | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    const millis = isEpochMilliseconds(value);
    const ms = Math.round(millis ? value : value * 1000);
    if (Math.abs(ms) > MAX_EPOCH_MS) return undefined;
    return { start: ms, end: ms + (millis || !Number.isInteger(value) ? 1 : 1000) };
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_8601.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // setUTCFullYear rolls 02-30 over to March: a changed month or day means the date does not exist.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  if (h === undefined) return { start: date.getTime(), end: date.getTime() + DAY };

  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = zoneOffsetMs(zone);
  if (offset === undefined) return undefined;
  const millis = frac === undefined ? 0 : Number(frac.padEnd(3, '0').slice(0, 3));
  const start = date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000 + millis - offset;
  const precision = frac !== undefined ? 1 : s !== undefined ? 1000 : 60_000;
  return { start, end: start + precision };
}

/** A missing zone means UTC (never the server's local time). */
function zoneOffsetMs(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes) * 60_000;
}

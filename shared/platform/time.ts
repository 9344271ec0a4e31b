import * as z from 'zod';

/** Latest accepted instant (year 9999): beyond it Date cannot round-trip an ISO string. */
const MAX_EPOCH_MS = 253_402_300_799_999;

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/i;

/**
 * A timestamp as the API accepts it: an ISO 8601 string (no zone means UTC) or epoch seconds, as the
 * Python SDK sends. Parses to epoch milliseconds.
 */
export const timestampSchema = z.unknown().transform((value, ctx) => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'Field required' });
    return z.NEVER;
  }
  const ms = typeof value === 'string' || typeof value === 'number' ? parseTimestamp(value) : undefined;
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch seconds' });
    return z.NEVER;
  }
  return ms;
});

export function parseTimestamp(value: string | number): number | undefined {
  if (typeof value === 'number') {
    const ms = value * 1000;
    return Number.isFinite(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? Math.round(ms) : undefined;
  }
  const text = value.trim();
  const parts = ISO_DATE_TIME.exec(text);
  if (!parts || !isCalendarValid(parts.slice(1).map((part) => (part === undefined ? 0 : Number(part))))) {
    return undefined;
  }
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.length > 10;
  const ms = Date.parse(hasZone ? text : `${text.replace(' ', 'T')}${text.length > 10 ? 'Z' : ''}`);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}

/** Date.parse rolls 2024-02-30 over to March: reject dates and times that do not exist instead. */
function isCalendarValid(fields: number[]): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] =
    fields;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const dateOk = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
  return dateOk && hour <= 23 && minute <= 59 && second <= 59 && zoneHour <= 23 && zoneMinute <= 59;
}

export const toIso = (ms: number) => new Date(ms).toISOString();

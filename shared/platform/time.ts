import * as z from '#shared/platform/zod.ts';

/** Latest accepted instant (year 9999): beyond it Date cannot round-trip an ISO string. */
export const MAX_EPOCH_MS = 253_402_300_799_999;

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/i;

/**
 * Numbers above this are epoch milliseconds, at or below it epoch seconds: the one rule for every
 * timestamp the API accepts. 1e11 seconds is the year 5138, 1e11 milliseconds March 1973, so neither
 * reading of a real timestamp crosses it (the Python SDK sends `time.time()`, the JS SDK `Date.now()`).
 */
export const EPOCH_MS_THRESHOLD = 1e11;

/** True when a numeric timestamp counts milliseconds (see EPOCH_MS_THRESHOLD). */
export const isEpochMilliseconds = (value: number) => value > EPOCH_MS_THRESHOLD;

/** A numeric timestamp in epoch milliseconds, whichever unit it was sent in. */
export const epochToMs = (value: number) => (isEpochMilliseconds(value) ? value : value * 1000);

export const TIMESTAMP_FORMS = 'an ISO 8601 date-time, epoch seconds or epoch milliseconds';

/**
 * A timestamp as the API accepts it: an ISO 8601 string (no zone means UTC) or an epoch number, in
 * seconds (the Python SDK) or milliseconds (`Date.now()`). Parses to epoch milliseconds.
 */
export const timestampSchema = z.pipe(
  z.unknown(),
  z.transform((value, ctx) => {
    if (value === undefined) {
      ctx.issues.push({ input: ctx.value, code: 'custom', message: 'Field required' });
      return z.NEVER;
    }
    const ms = typeof value === 'string' || typeof value === 'number' ? parseTimestamp(value) : undefined;
    if (ms === undefined) {
      ctx.issues.push({ input: ctx.value, code: 'custom', message: `must be ${TIMESTAMP_FORMS}` });
      return z.NEVER;
    }
    return ms;
  }),
);

/**
 * A timestamp sent in a query string: the same forms as timestampSchema, a string of digits (with an
 * optional fraction) read as an epoch number. Parses to epoch milliseconds.
 */
export const queryTimestampSchema = z.pipe(
  z.string(),
  z.transform((text, ctx) => {
    const ms = parseTimestamp(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
    if (ms === undefined) {
      ctx.issues.push({ input: ctx.value, code: 'custom', message: `must be ${TIMESTAMP_FORMS}` });
      return z.NEVER;
    }
    return ms;
  }),
);

export function parseTimestamp(value: string | number): number | undefined {
  if (typeof value === 'number') {
    const ms = epochToMs(value);
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

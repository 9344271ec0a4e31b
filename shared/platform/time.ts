import * as z from 'zod';

/** Latest accepted instant (year 9999): beyond it Date cannot round-trip an ISO string. */
const MAX_EPOCH_MS = 253_402_300_799_999;

const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

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
  if (!ISO_DATE_TIME.test(text)) return undefined;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.length > 10;
  const ms = Date.parse(hasZone ? text : `${text.replace(' ', 'T')}${text.length > 10 ? 'Z' : ''}`);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}

export const toIso = (ms: number) => new Date(ms).toISOString();

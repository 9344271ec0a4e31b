import * as z from 'zod';

/** Fields of the track-score and track-metadata bodies that are rules of the domain, not of one route. */

/** A logged request's id; the reference OpenAPI also allows it as a string of digits. */
export const requestIdField = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value),
  z.int().min(1),
);

/** Metadata keys are counted in characters (code points), as zod counts the other string limits. */
const MAX_METADATA_KEY = 1024;

/**
 * Metadata as log-request takes it: string values, keys at most 1024 characters. The keys
 * are checked on the raw object: zod's record-key errors drop the message, and zod silently drops a
 * `__proto__` key, which is refused here instead of losing it.
 */
export const metadataField = z
  .unknown()
  .superRefine((metadata, ctx) => {
    if (metadata === null || typeof metadata !== 'object') return; // the record schema reports it
    for (const key of Object.keys(metadata)) {
      if (key === '__proto__') {
        ctx.addIssue({ code: 'custom', path: [key], message: '__proto__ is not allowed as a metadata key' });
      } else if (key.length > MAX_METADATA_KEY && [...key].length > MAX_METADATA_KEY) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'a metadata key is at most 1024 characters' });
      }
    }
  })
  .pipe(z.record(z.string(), z.string()));

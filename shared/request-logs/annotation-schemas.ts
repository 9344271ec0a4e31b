import * as z from 'zod';

/** Fields of the track-score and track-metadata bodies that are rules of the domain, not of one route. */

/** A logged request's id; the reference OpenAPI also allows it as a string of digits. */
export const requestIdField = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value),
  z.int().min(1),
);

/** Metadata as log-request takes it: string values, keys at most 1024 characters (spec Limits). */
export const metadataField = z.record(z.string(), z.string()).superRefine((metadata, ctx) => {
  // Checked here rather than on the record's key schema: zod's record-key errors drop the message.
  for (const key of Object.keys(metadata)) {
    if (key.length > 1024)
      ctx.addIssue({ code: 'custom', path: [key], message: 'a metadata key is at most 1024 characters' });
  }
});

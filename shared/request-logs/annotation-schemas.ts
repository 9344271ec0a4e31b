import * as z from 'zod';
import { wellFormedString } from '#shared/platform/schemas.ts';
import { labelNameSchema, promptNameSchema, versionOrLabel } from '#shared/prompts/schemas.ts';

/** Bodies of the routes that annotate a logged request afterwards, shared by the routes that take them. */

/** An id in a tracking body; the reference OpenAPI also allows it as a string of digits. */
const idField = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value),
  z.int().min(1),
);

/** A logged request's id. */
export const requestIdField = idField;

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

/** Body of POST /rest/track-metadata and /library-track-metadata. */
export const trackMetadataBodySchema = z.object({
  request_id: requestIdField,
  metadata: metadataField,
});

/** The score a log's `score` field shows: a score given without a name. */
export const DEFAULT_SCORE_NAME = 'default';

/** Body of POST /rest/track-score and /library-track-score; no name is the `default` score. */
export const trackScoreBodySchema = z.object({
  request_id: requestIdField,
  score: z.int().min(0).max(100),
  name: wellFormedString()
    .min(1)
    .max(255)
    .nullish()
    .transform((name) => name ?? DEFAULT_SCORE_NAME),
});

/** A group's id (POST /create-group answers it). */
export const groupIdField = idField;

/** Body of POST /rest/track-group and /track-group. */
export const trackGroupBodySchema = z.object({ request_id: requestIdField, group_id: groupIdField });

/** Body of POST /library-track-prompt: a template by name, at a version or label (else the latest). */
export const trackPromptBodySchema = z
  .object({
    request_id: requestIdField,
    prompt_name: promptNameSchema,
    prompt_input_variables: z
      .record(z.string(), z.unknown())
      .nullish()
      .transform((v) => v ?? {}),
    version: z
      .preprocess(
        (value) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value),
        z.int().gt(0),
      )
      .nullish(),
    label: labelNameSchema.nullish(),
  })
  .superRefine(versionOrLabel);

/** What the tracking routes answer. */
export const trackResponseSchema = z.object({ success: z.literal(true), message: z.string() });

import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { labelNameSchema, promptNameSchema, versionOrLabel } from '#shared/prompts/schemas.ts';

/** Bodies of the routes that annotate a logged request afterwards, shared by the routes that take them. */

/** An id in a tracking body; the reference OpenAPI also allows it as a string of digits. */
const idField = z.pipe(
  z.transform((value) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value)),
  z.int().check(z.gte(1)),
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
export const metadataField = z.pipe(
  z.unknown().check(
    z.superRefine((metadata, ctx) => {
      if (metadata === null || typeof metadata !== 'object') return; // the record schema reports it
      for (const key of Object.keys(metadata)) {
        if (key === '__proto__') {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: '__proto__ is not allowed as a metadata key',
          });
        } else if (key.length > MAX_METADATA_KEY && [...key].length > MAX_METADATA_KEY) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'a metadata key is at most 1024 characters' });
        }
      }
    }),
  ),
  z.record(z.string(), z.string()),
);

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
  score: z.int().check(z.gte(0), z.lte(100)),
  name: z.pipe(
    z.nullish(wellFormedString().check(z.minLength(1), z.maxLength(255))),
    z.transform((name) => name ?? DEFAULT_SCORE_NAME),
  ),
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
    prompt_input_variables: z.pipe(
      z.nullish(z.record(z.string(), z.unknown())),
      z.transform((v) => v ?? {}),
    ),
    version: z.nullish(
      z.pipe(
        z.transform((value) =>
          typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value,
        ),
        z.int().check(z.gt(0)),
      ),
    ),
    label: z.nullish(labelNameSchema),
  })
  .check(z.superRefine(versionOrLabel));

/** What the tracking routes answer. */
export const trackResponseSchema = z.object({ success: z.literal(true), message: z.string() });

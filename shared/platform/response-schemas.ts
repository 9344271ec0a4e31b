import * as z from '#shared/platform/zod.ts';

/**
 * Building blocks of the response schemas routes declare (`responses` of httpRoute): the OpenAPI
 * document is generated from them and the end-to-end tests check every success answer against them.
 * Schemas with a `meta({ id })` become named components of the document.
 */

/** The error body of every non-2xx answer (DESIGN: `{success: false, message, error, detail?}`). */
export const errorBodySchema = z
  .object({
    success: z.literal(false),
    message: z.string().clone().register(z.globalRegistry, { description: 'What went wrong, for a person.' }),
    error: z.string().clone().register(z.globalRegistry, {
      description: 'Machine-readable code, e.g. `not_found`, `validation_error`.',
    }),
    detail: z
      .optional(
        z.array(
          z.object({
            loc: z.array(z.union([z.string(), z.number()])),
            msg: z.string(),
            type: z.string(),
          }),
        ),
      )
      .clone()
      .register(z.globalRegistry, {
        description: 'Every failing field of a 422, with where it is (`["body", "score"]`).',
      }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Error' });

/** An instant as the API answers it: ISO 8601 UTC with milliseconds (`2024-01-15T10:30:00.000Z`). */
export const isoTimestamp = z.iso.datetime();

export { jsonObject } from './schemas.ts';

/** `{success: true}` alone (deletes). */
export const successSchema = z.object({ success: z.literal(true) });

/** `{success: true, message}` (acknowledgements). */
export const successMessageSchema = z.object({ success: z.literal(true), message: z.string() });

/** The page arithmetic of page-style lists (see pagination.ts). */
export const pageFields = {
  page: z.int(),
  per_page: z.int(),
  pages: z.int(),
  total: z.int(),
  has_next: z.boolean(),
  has_prev: z.boolean(),
  next_num: z.nullable(z.int()),
  prev_num: z.nullable(z.int()),
};

/** A page-style list of `item`. */
export const pageOf = <T extends z.ZodMiniType>(item: T) => z.object({ items: z.array(item), ...pageFields });

import { uploadUrlSchema } from '#shared/datasets/response-schemas.ts';
import { createUploadUrl } from '#shared/datasets/uploads.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-versions/upload-url: a presigned S3 PUT for a dataset file too large for
 * a request body (up to 100 MB); from-file then takes the answer's `file_key`.
 */
export const handler = httpRoute({
  body: z.object({
    file_name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
    // The exact size of the file to PUT: signed into the URL, so S3 takes no other size.
    file_size: z.nullish(z.int().check(z.gte(1))),
  }),
  permission: ['datasets', 'edit'],
  responses: { 200: uploadUrlSchema },
  handle: ({ body, auth }) => createUploadUrl(auth.workspaceId, body.file_name, body.file_size ?? undefined),
});

import { versionFromFileSchema } from '#shared/datasets/response-schemas.ts';
import { createVersionFromFile } from '#shared/datasets/versions.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-versions/from-file: the file inline (`file_content_base64`) or uploaded
 * first through upload-url (`file_key`); a draft is created and a job parses the file.
 */
export const handler = httpRoute({
  body: z
    .object({
      dataset_group_id: z.int().check(z.gte(1)),
      file_name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
      file_content_base64: z.optional(z.string().check(z.minLength(1))),
      file_key: z.optional(z.string().check(z.minLength(1))),
    })
    .check(
      z.superRefine((body, ctx) => {
        const given = Number(body.file_content_base64 !== undefined) + Number(body.file_key !== undefined);
        if (given === 1) return;
        ctx.addIssue({
          code: 'custom',
          path: ['file_content_base64'],
          message: given ? 'give file_content_base64 or file_key, not both' : 'Field required (or file_key)',
        });
      }),
    ),
  permission: ['datasets', 'edit'],
  responses: { 201: versionFromFileSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ body, auth }) => {
    const datasetId = await createVersionFromFile(auth, {
      groupId: body.dataset_group_id,
      fileName: body.file_name,
      base64: body.file_content_base64,
      fileKey: body.file_key,
    });
    return { success: true, message: 'Dataset version creation job queued', dataset_id: datasetId };
  },
});

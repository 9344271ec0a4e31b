import { versionFromFileSchema } from '#shared/datasets/response-schemas.ts';
import { UPLOAD_ROUTE_MAX_BYTES } from '#shared/datasets/uploads.ts';
import { createVersionFromFile } from '#shared/datasets/versions.ts';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

const FILE_CONTENT_TYPES = ['text/csv', 'application/json', 'application/octet-stream'] as const;

/**
 * POST /api/public/v2/dataset-versions/upload: the file's bytes as the body, through the API's own
 * origin (the dashboard's CSP allows no other, so it cannot PUT to a presigned S3 URL), up to 5 MB (a
 * Lambda request carries at most 6 MB); then the same job as from-file. Bigger files: upload-url.
 */
export const handler = httpRoute({
  query: z.object({
    dataset_group_id: idParam,
    file_name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
  }),
  permission: ['datasets', 'edit'],
  bytesBody: {
    contentTypes: FILE_CONTENT_TYPES,
    documented: z.array(z.record(z.string(), z.unknown())).clone().register(z.globalRegistry, {
      description: 'The file: a JSON array of objects (a row each), or a CSV under text/csv',
    }),
  },
  responses: { 201: versionFromFileSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ query, headers, rawBody, auth }) => {
    const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (!FILE_CONTENT_TYPES.some((allowed) => allowed === type)) {
      throw unsupportedMediaType(`Content-Type must be one of ${FILE_CONTENT_TYPES.join(', ')}`);
    }
    const bytes = rawBody as Buffer;
    if (bytes.length === 0) throw badRequest("The body is empty: send the file's bytes", 'empty_file');
    if (bytes.length > UPLOAD_ROUTE_MAX_BYTES) {
      throw payloadTooLarge(
        `The file is larger than ${UPLOAD_ROUTE_MAX_BYTES / 1024 / 1024} MB: upload it through upload-url`,
      );
    }
    const datasetId = await createVersionFromFile(auth, {
      groupId: query.dataset_group_id,
      fileName: query.file_name,
      bytes,
    });
    return { success: true, message: 'Dataset version creation job queued', dataset_id: datasetId };
  },
});

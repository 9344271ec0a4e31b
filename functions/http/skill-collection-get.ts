import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getCollection } from '#shared/skills/read.ts';
import {
  collectionIdentifierSchema,
  getCollectionQuerySchema,
  getCollectionResponseSchema,
} from '#shared/skills/schemas.ts';

/**
 * GET /api/public/v2/skill-collections/{identifier}: a collection (by UUID or name) at a version, a
 * label or the latest, with its files; `format=zip` answers the files as a ZIP archive.
 */
export const handler = httpRoute({
  path: z.object({ identifier: collectionIdentifierSchema }),
  query: getCollectionQuerySchema,
  permission: ['skills', 'read'],
  responses: { 200: getCollectionResponseSchema },
  // A ZIP past what one answer carries.
  errors: [413],
  // A client asks for the archive with `Accept: application/zip` (API Gateway then answers bytes).
  binaryResponses: { 200: 'application/zip' },
  async handle({ path, query, auth }) {
    const { version, label, format } = query;
    const answer = await getCollection(auth.workspaceId, path.identifier, { version, label }, format);
    if (answer.zip) {
      const filename = `${answer.name.replace(/[^A-Za-z0-9._-]/g, '_')}.zip`;
      return new HttpResponse(200, answer.zip, {
        'Content-Type': 'application/zip',
        'Content-Disposition': `attachment; filename="${filename}"`,
      });
    }
    return answer.json;
  },
});

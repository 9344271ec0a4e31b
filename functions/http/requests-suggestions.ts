import {
  requestSuggestions,
  suggestionsQuerySchema,
  suggestionsResponseSchema,
} from '#shared/analytics/suggestions.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/requests/suggestions: values seen for a field (models, tags, metadata...), from the rollups. */
export const handler = httpRoute({
  query: suggestionsQuerySchema,
  permission: ['request_logs', 'read'],
  responses: { 200: suggestionsResponseSchema },
  handle: ({ query, auth }) => requestSuggestions(auth.workspaceId, query),
});

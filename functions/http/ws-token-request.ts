import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import {
  capabilitySchema,
  requestRunUpdatesToken,
  runUpdatesTokenSchema,
} from '#shared/workflows/engine/updates-token.ts';

/**
 * POST /ws-token-request-library: a short-lived token for the updates of one workflow run of the
 * workspace (`capability=workflow_updates:<workflow_version_execution_id>`), to subscribe with at
 * `/connection/websocket` (Centrifugo's protocol), as the PromptLayer SDK's `runWorkflow` asks for it.
 */
export const handler = httpRoute({
  query: z.object({ capability: capabilitySchema }),
  // The SDK sends none: what the token is for is in the query.
  body: z.object({}),
  optionalBody: true,
  permission: ['workflows', 'read'],
  responses: { 200: runUpdatesTokenSchema },
  errors: [404],
  handle: ({ query, auth }) => requestRunUpdatesToken(auth.workspaceId, query.capability, Date.now()),
});

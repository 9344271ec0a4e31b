import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { createGroup } from '#shared/request-logs/groups.ts';

/** POST /create-group (the SDK's `group.create`): a new group of the key's workspace; answers its id. */
export const handler = httpRoute({
  auth: 'body',
  keyCheck: authenticateApiKey,
  // The SDK sends only `api_key`; with the key in the header there may be no body at all.
  body: z.object({}),
  optionalBody: true,
  permission: ['request_logs', 'edit'],
  responses: { 200: z.object({ success: z.literal(true), id: z.int() }) },
  handle: async ({ auth }) => {
    const group = await createGroup(auth.workspaceId);
    return { success: true, id: group.id };
  },
});

import { type AuthContext, ENTITY_TYPES } from '#shared/platform/auth-context.ts';
import * as z from '#shared/platform/zod.ts';
import { findKeySummary, findWorkspaceName } from './api-keys.ts';

/**
 * GET /api/public/v2/me: what the presented key is and may do, for a client deciding what to offer (the
 * dashboard hides edit actions a key may not take). Never the key itself: its id and first characters.
 */
const accessSchema = z.enum(['read', 'edit']);

export const meResponseSchema = z
  .object({
    success: z.literal(true),
    workspace: z.object({ id: z.int(), name: z.nullable(z.string()) }),
    key: z.object({
      id: z
        .nullable(z.int())
        .clone()
        .register(z.globalRegistry, { description: "The key's id (as `npm run keys list` shows it)." }),
      prefix: z.nullable(z.string()).clone().register(z.globalRegistry, {
        description: 'The first characters of the key, enough to tell keys apart.',
      }),
    }),
    user: z.object({ id: z.int(), email: z.nullable(z.string()) }),
    permissions: z
      .object(Object.fromEntries(ENTITY_TYPES.map((type) => [type, z.optional(accessSchema)])))
      .clone()
      .register(z.globalRegistry, {
        description: 'The access per entity type: `read`, `edit`, or absent for none.',
      }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Me' });
export type MeResponse = z.infer<typeof meResponseSchema>;

export async function describeCaller(
  auth: AuthContext,
  presentedKey: string | undefined,
): Promise<MeResponse> {
  const [summary, workspaceName] = await Promise.all([
    presentedKey ? findKeySummary(presentedKey) : undefined,
    findWorkspaceName(auth.workspaceId),
  ]);
  const permissions = Object.fromEntries(
    ENTITY_TYPES.filter((type) => auth.permissions[type]).map((type) => [type, auth.permissions[type]]),
  );
  return {
    success: true,
    workspace: { id: auth.workspaceId, name: workspaceName ?? null },
    key: { id: summary?.keyId ?? null, prefix: summary?.prefix ?? null },
    user: { id: auth.userId, email: auth.userEmail },
    permissions,
  };
}

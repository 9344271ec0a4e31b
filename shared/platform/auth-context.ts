/**
 * Who is calling: what the key authorizer resolved from X-API-KEY and hands to every route as the
 * API Gateway authorizer context (string values only, so permissions travel as JSON).
 */
export const ENTITY_TYPES = [
  'request_logs',
  'prompts',
  'datasets',
  'workflows',
  'reports',
  'tools',
  'skills',
  'folders',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
export type Access = 'read' | 'edit';
export type Permissions = Partial<Record<EntityType, Access>>;

/**
 * Where a route finds the API key: the X-API-KEY header, checked by the gateway's key authorizer
 * before the route runs, or the JSON body's `api_key` (the PromptLayer SDK's tracking routes), which no
 * gateway authorizer can read, so the HTTP wrapper checks it (falling back to the header).
 */
export type RouteAuth = 'header' | 'body';

export interface AuthContext {
  workspaceId: number;
  userId: number;
  permissions: Permissions;
}

/** Every entity type editable: what a newly created key gets unless told otherwise. */
export const FULL_ACCESS: Permissions = Object.fromEntries(ENTITY_TYPES.map((type) => [type, 'edit']));

export function allows(permissions: Permissions, entity: EntityType, access: Access): boolean {
  const granted = permissions[entity];
  return granted === 'edit' || (granted === 'read' && access === 'read');
}

/** The authorizer context as API Gateway carries it (all values strings). */
export interface AuthorizerContextStrings {
  workspaceId: string;
  userId: string;
  permissions: string;
}

export function toAuthorizerContext(auth: AuthContext): AuthorizerContextStrings {
  return {
    workspaceId: String(auth.workspaceId),
    userId: String(auth.userId),
    permissions: JSON.stringify(auth.permissions),
  };
}

export function fromAuthorizerContext(
  context: Record<string, unknown> | null | undefined,
): AuthContext | undefined {
  const workspaceId = Number(context?.workspaceId);
  const userId = Number(context?.userId);
  if (!Number.isSafeInteger(workspaceId) || workspaceId <= 0 || !Number.isSafeInteger(userId))
    return undefined;
  try {
    return {
      workspaceId,
      userId,
      permissions: JSON.parse(String(context?.permissions ?? '{}')) as Permissions,
    };
  } catch {
    return undefined;
  }
}

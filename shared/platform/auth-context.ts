/**
 * Who is calling: what the key authorizer resolved from X-API-KEY and hands to every route as the
 * API Gateway authorizer context (string values only, so permissions travel as JSON).
 *
 * ENTITY_TYPES only grows at its end (see grantedAsStored).
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
  'webhooks',
  /** The workspace's LLM provider keys (shared/providers/keys.ts): edit sets and deletes them. */
  'provider_keys',
  /** Monitors over the request-log rollups (shared/monitors): edit creates, changes and deletes them. */
  'monitors',
  /** Workspace environment variables (shared/env-vars): edit creates, changes and deletes them. */
  'env_vars',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
export type Access = 'read' | 'edit';
export type Permissions = Partial<Record<EntityType, Access>>;

/** How many entity types there were when keys were first issued (before `webhooks`). */
const FIRST_ENTITY_TYPES = 8;

/**
 * A key's permissions as they apply today. A key stores its map as it was made, so a key made with
 * full access (or read-only) before an entity type existed lacks that type: a map holding exactly the
 * entity types of some earlier list (the first N of ENTITY_TYPES, which only grows at its end), all
 * with one access, was such a key, and the types added since get that access too. Any other map is
 * taken as it is (a key granted some types gets no access to new ones until it is granted them).
 */
export function grantedAsStored(stored: Permissions): Permissions {
  const held = ENTITY_TYPES.filter((type) => Object.hasOwn(stored, type) && stored[type]);
  const accesses = new Set(held.map((type) => stored[type]));
  const [access] = accesses;
  const isPrefix = held.every((type, index) => ENTITY_TYPES[index] === type);
  if (accesses.size !== 1 || !access || !isPrefix || held.length < FIRST_ENTITY_TYPES) return stored;
  return Object.fromEntries(ENTITY_TYPES.map((type) => [type, access]));
}

/**
 * Where a route finds the API key: the X-API-KEY header, checked by the gateway's key authorizer
 * before the route runs, or the JSON body's `api_key` (the PromptLayer SDK's tracking routes), which no
 * gateway authorizer can read, so the HTTP wrapper checks it (falling back to the header), or the password
 * of `Authorization: Basic` (Langfuse's OTLP exporter), which the wrapper checks the same way.
 */
export type RouteAuth = 'header' | 'body' | 'basic';

/** Whether the route's handler checks the key itself (no gateway authorizer can read where it is). */
export const keyCheckedByHandler = (auth: RouteAuth | undefined): boolean =>
  auth === 'body' || auth === 'basic';

export interface AuthContext {
  workspaceId: number;
  userId: number;
  /** The e-mail address of the key's user; null for a user without one (every key made before keys had one). */
  userEmail: string | null;
  permissions: Permissions;
}

/** The longest e-mail address a user may have (64 for the local part, @, 255 for the domain). */
export const MAX_EMAIL_LENGTH = 320;

/**
 * An e-mail address as a user's: at most MAX_EMAIL_LENGTH characters, written as the HTML form rule
 * for an e-mail field has it (ASCII letters, digits and `.!#$%&'*+/=?^_`{|}~-` before one `@`, then
 * dot-separated labels of letters, digits and inner hyphens, at most 63 characters each).
 */
export function isValidEmail(address: string): boolean {
  return address.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(address);
}
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Two addresses name the same user when they are equal ignoring case, on the whole address. */
export const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

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
  /** The user's e-mail address; '' for none (a context value cannot be null). */
  userEmail: string;
  permissions: string;
}

export function toAuthorizerContext(auth: AuthContext): AuthorizerContextStrings {
  return {
    workspaceId: String(auth.workspaceId),
    userId: String(auth.userId),
    userEmail: auth.userEmail ?? '',
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
      // '' or absent (a decision cached before contexts carried it): no address.
      userEmail:
        typeof context?.userEmail === 'string' && context.userEmail !== '' ? context.userEmail : null,
      permissions: JSON.parse(String(context?.permissions ?? '{}')) as Permissions,
    };
  } catch {
    return undefined;
  }
}

/** Every entity type readable and none editable: what `keys create --read-only` gives. */
export const READ_ONLY: Permissions = Object.fromEntries(ENTITY_TYPES.map((type) => [type, 'read']));

/**
 * Permissions as a person reads them: `full access`, `read-only`, `no access`, or each entity type
 * with its access (`prompts:read,datasets:edit`), in the order of ENTITY_TYPES.
 */
export function describePermissions(permissions: Permissions): string {
  const granted = ENTITY_TYPES.filter((type) => Object.hasOwn(permissions, type) && permissions[type]);
  if (granted.length === 0) return 'no access';
  if (granted.length === ENTITY_TYPES.length) {
    if (granted.every((type) => permissions[type] === 'edit')) return 'full access';
    if (granted.every((type) => permissions[type] === 'read')) return 'read-only';
  }
  return granted.map((type) => `${type}:${permissions[type]}`).join(',');
}

/**
 * The other direction, for the keys CLI: `prompts:read,datasets:edit` (entity types not named get no
 * access). Throws an Error naming what is wrong.
 */
export function parsePermissions(text: string): Permissions {
  const permissions: Permissions = {};
  for (const part of text.split(',').map((item) => item.trim())) {
    const [type = '', access = '', ...rest] = part.split(':');
    if (
      !(ENTITY_TYPES as readonly string[]).includes(type) ||
      (access !== 'read' && access !== 'edit') ||
      rest.length
    ) {
      throw new Error(
        `"${part}" is not a permission: write TYPE:read or TYPE:edit, TYPE one of ${ENTITY_TYPES.join(', ')}`,
      );
    }
    permissions[type as EntityType] = access;
  }
  return permissions;
}

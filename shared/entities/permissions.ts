import type { Access, AuthContext } from '#shared/platform/auth-context.ts';
import { type Permission, requireAccess } from '#shared/platform/permissions.ts';
import { ENTITY_KINDS, type EntityKind } from './kinds.ts';

/**
 * For domain code: throws the house 403 (naming the permission type, as a route's own check does)
 * unless the key may `action` entities of the kind.
 */
export function requirePermission(
  auth: Pick<AuthContext, 'permissions'>,
  kind: EntityKind,
  action: Access,
): void {
  requireAccess(auth, ENTITY_KINDS[kind].permission, action);
}

/** The permission entities of a kind need, for a route's `permission` (e.g. one per kind in a body). */
export const kindPermission = (kind: EntityKind, action: Access): Permission => [
  ENTITY_KINDS[kind].permission,
  action,
];

import { type Access, type AuthContext, allows, type EntityType } from './auth-context.ts';
import { forbidden } from './errors.ts';

/** A permission a route or domain step needs: an entity type and the access to it. */
export type Permission = readonly [EntityType, Access];

/** Throws the 403 naming the type unless the key has that access (edit implies read). */
export function requireAccess(
  auth: Pick<AuthContext, 'permissions'>,
  entity: EntityType,
  access: Access,
): void {
  if (!allows(auth.permissions, entity, access)) {
    throw forbidden(`This API key may not ${access} ${entity.replace('_', ' ')}`);
  }
}

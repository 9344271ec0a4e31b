import type { ComponentChildren } from 'preact';
import { type EntityType, useCanEdit } from '../api/session.ts';

/** Shows its children (edit actions) only to a key that may edit this entity type. */
export function EditOnly({ entity, children }: { entity: EntityType; children: ComponentChildren }) {
  return useCanEdit(entity) ? children : null;
}

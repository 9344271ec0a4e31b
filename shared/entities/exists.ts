import { getFolder } from '#shared/folders/store.ts';
import type { EntityKind } from './kinds.ts';
import { type EntityId, type PlacedKind, placedEntityExists } from './placement.ts';

/**
 * Whether an entity of a kind with that id exists in the workspace, as a client would see it (a
 * deleted report does not; an id of another workspace does not). Kept apart from kinds.ts because it
 * loads every feature's store: only the functions that ask it bundle them.
 *
 * Each kind with a place in folders is read as a folder move reads it (KIND_PLACEMENT: one definition
 * of where its head is and when it is live), folders through their store. Ids are integers, except a
 * skill collection's (a UUID string): an id of the wrong form exists for no kind. Always false:
 * `ab_test` and `input_variable_set`, which cannot exist here.
 */
const placed =
  (kind: PlacedKind) =>
  (ws: number, id: EntityId): Promise<boolean> =>
    placedEntityExists(ws, kind, id);

export const KIND_EXISTS: Readonly<
  Record<EntityKind, (workspaceId: number, id: EntityId) => Promise<boolean>>
> = {
  prompt: placed('prompt'),
  // A snippet is a prompt template.
  snippet: placed('snippet'),
  dataset: placed('dataset'),
  report: placed('report'),
  workflow: placed('workflow'),
  tool: placed('tool'),
  skill_collection: placed('skill_collection'),
  folder: async (ws, id) => typeof id === 'number' && (await getFolder(ws, id)) !== undefined,
  ab_test: async () => false,
  input_variable_set: async () => false,
};

export const entityExists = (kind: EntityKind, workspaceId: number, id: EntityId): Promise<boolean> =>
  KIND_EXISTS[kind](workspaceId, id);

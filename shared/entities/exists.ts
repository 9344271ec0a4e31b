import { getGroup } from '#shared/datasets/repository.ts';
import { getFolder } from '#shared/folders/store.ts';
import { promptStore } from '#shared/prompts/kind.ts';
import { getReport } from '#shared/reports/store.ts';
import { headById } from '#shared/skills/collection.ts';
import { toolStore } from '#shared/tools/registry.ts';
import { findHeadById } from '#shared/versions/read.ts';
import { workflowStore } from '#shared/workflows/registry.ts';
import type { EntityKind } from './kinds.ts';

/**
 * Whether an entity of a kind with that id exists in the workspace, as a client would see it (a
 * deleted report does not; an id of another workspace does not). Kept apart from kinds.ts because it
 * loads every feature's store: only the functions that ask it bundle them.
 *
 * Ids are integers, except a skill collection's (a UUID string): an id of the wrong form exists for no
 * kind. Answering false (every id a 404): `ab_test`, `input_variable_set`, which cannot exist here.
 */
export const KIND_EXISTS: Readonly<
  Record<EntityKind, (workspaceId: number, id: number | string) => Promise<boolean>>
> = {
  prompt: async (ws, id) => validId(id) && (await findHeadById(promptStore, ws, id)) !== undefined,
  // A snippet is a prompt template.
  snippet: async (ws, id) => validId(id) && (await findHeadById(promptStore, ws, id)) !== undefined,
  dataset: async (ws, id) => validId(id) && (await getGroup(ws, id)) !== undefined,
  report: async (ws, id) => validId(id) && (await getReport(ws, id)) !== undefined,
  workflow: async (ws, id) => validId(id) && (await findHeadById(workflowStore, ws, id)) !== undefined,
  tool: async (ws, id) => validId(id) && (await findHeadById(toolStore, ws, id)) !== undefined,
  // A skill collection's id is its UUID.
  skill_collection: async (ws, id) => typeof id === 'string' && (await headById(ws, id)) !== undefined,
  folder: async (ws, id) => validId(id) && (await getFolder(ws, id)) !== undefined,
  ab_test: async () => false,
  input_variable_set: async () => false,
};

const validId = (id: number | string): id is number =>
  typeof id === 'number' && Number.isSafeInteger(id) && id > 0;

export const entityExists = (kind: EntityKind, workspaceId: number, id: number | string): Promise<boolean> =>
  KIND_EXISTS[kind](workspaceId, id);

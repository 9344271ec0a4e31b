import { getGroup } from '#shared/datasets/repository.ts';
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
 * Not implemented yet, so answering false (every id a 404): `folder`, whose feature has no store
 * yet (it adds its check here when it lands), and `ab_test`, `input_variable_set`, which cannot exist
 * here.
 */
export const KIND_EXISTS: Readonly<
  Record<EntityKind, (workspaceId: number, id: number) => Promise<boolean>>
> = {
  prompt: async (ws, id) => (await findHeadById(promptStore, ws, id)) !== undefined,
  // A snippet is a prompt template.
  snippet: async (ws, id) => (await findHeadById(promptStore, ws, id)) !== undefined,
  dataset: async (ws, id) => validId(id) && (await getGroup(ws, id)) !== undefined,
  report: async (ws, id) => validId(id) && (await getReport(ws, id)) !== undefined,
  workflow: async (ws, id) => (await findHeadById(workflowStore, ws, id)) !== undefined,
  tool: async (ws, id) => (await findHeadById(toolStore, ws, id)) !== undefined,
  // A skill collection's id is its UUID.
  skill_collection: async (ws, id: number | string) =>
    typeof id === 'string' && (await headById(ws, id)) !== undefined,
  folder: async () => false,
  ab_test: async () => false,
  input_variable_set: async () => false,
};

const validId = (id: number) => Number.isSafeInteger(id) && id > 0;

export const entityExists = (kind: EntityKind, workspaceId: number, id: number): Promise<boolean> =>
  KIND_EXISTS[kind](workspaceId, id);

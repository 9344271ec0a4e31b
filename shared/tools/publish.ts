import { type ExternalId, uniqueExternalIds } from '#shared/external-ids/external-ids.ts';
import { requireFolder } from '#shared/folders/require.ts';
import { conflict, payloadTooLarge } from '#shared/platform/errors.ts';
import { invalidateTool } from '#shared/prompts/template-cache.ts';
import {
  largestLabelEntry,
  MAX_HEAD_BYTES,
  type Published,
  publishVersion,
  readForPublish,
} from '#shared/versions/publish.ts';
import { type HeadAndLatest, storedJsonBytes } from '#shared/versions/store.ts';
import { requireToolHead } from './read.ts';
import {
  TOOL_KIND,
  type ToolHead,
  type ToolHeadFields,
  type ToolLabelEntry,
  type ToolVersionRecord,
  toolStore,
} from './registry.ts';
import type { CreateToolBody, CreateToolVersionBody, ToolDefinition, ToolExecution } from './schemas.ts';
import { toToolEntry, toToolVersion } from './views.ts';

/**
 * Creating tools and their versions on the shared publish of versioned entities
 * (shared/versions/publish.ts: external ids claimed first, versions 1..N without gaps under concurrent
 * publishes, labels moved by compare-and-set). A tool's name is unique in its workspace: a create of a
 * name that exists is a 409 before anything is written, and a create that loses a race for version 1
 * of the same name is a 409 too (its claims released, no version written).
 */

interface ToolPublish {
  name: string;
  state: HeadAndLatest<ToolHead, ToolVersionRecord>;
  definition: ToolDefinition;
  execution: ToolExecution | null;
  commitMessage: string | null;
  labels: string[];
  externalIds: ExternalId[];
  newHead: ToolHeadFields;
  /** Only as version 1 (a create): any other number is a 409. */
  firstOnly: boolean;
}

async function publishTool(
  workspaceId: number,
  userId: number,
  input: ToolPublish,
): Promise<Published<ToolVersionRecord, ToolLabelEntry>> {
  const { name, state, labels } = input;
  const largest = largestLabelEntry(TOOL_KIND);
  const plannedLabels = {
    ...state.head?.labels,
    ...Object.fromEntries(labels.map((label) => [label, largest])),
  };
  if (storedJsonBytes(plannedLabels) > MAX_HEAD_BYTES) {
    throw payloadTooLarge(`A tool's labels are at most ${MAX_HEAD_BYTES} bytes as JSON`);
  }
  const createdAt = Date.now();
  return publishVersion(toolStore, workspaceId, state, {
    name,
    labels,
    externalIds: input.externalIds,
    build: ({ id, entityId, number }) => {
      if (input.firstOnly && number !== 1) throw conflict(`A tool named ${name} already exists`);
      return {
        id,
        tool_id: entityId,
        tool_name: name,
        number,
        tool_definition: input.definition,
        execution: input.execution,
        commit_message: input.commitMessage,
        user_id: userId,
        created_at: createdAt,
      };
    },
    newHead: input.newHead,
    headUpdate: {},
    // Templates that expanded this tool read it again (the prompt read cache of this container).
    changed: () => invalidateTool(workspaceId, name),
  });
}

/** POST /api/public/v2/tool-registry: a new tool at version 1. */
export async function createTool(
  workspaceId: number,
  userId: number,
  body: CreateToolBody,
  userEmail: string | null,
) {
  const [state] = await Promise.all([
    readForPublish(toolStore, workspaceId, body.name, 0),
    // The folder it is filed under must be one of the workspace's (404).
    requireFolder(workspaceId, body.folder_id),
  ]);
  if (state.head || state.latest) throw conflict(`A tool named ${body.name} already exists`);
  const newHead: ToolHeadFields = {
    description: body.description ?? null,
    folder_id: body.folder_id ?? null,
    user_id: userId,
    user_email: userEmail,
  };
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const published = await publishTool(workspaceId, userId, {
    name: body.name,
    state,
    definition: body.tool_definition,
    execution: body.execution ?? null,
    commitMessage: body.commit_message ?? null,
    labels: [],
    externalIds,
    newHead,
    firstOnly: true,
  });
  const { version } = published;
  const head: ToolHead = {
    ...newHead,
    id: published.entityId,
    name: body.name,
    created_at: version.created_at,
    updated_at: version.created_at,
    labels: {},
    has_external_ids: externalIds.length > 0,
  };
  return {
    success: true as const,
    tool_registry: toToolEntry(workspaceId, head, version.number, published.externalIds),
    version: toToolVersion(version, []),
    external_ids: published.externalIds,
  };
}

/** POST /api/public/v2/tool-registry/{identifier}/versions: the next version, with labels moved onto it. */
export async function createToolVersion(
  workspaceId: number,
  userId: number,
  identifier: string,
  body: CreateToolVersionBody,
) {
  const head = await requireToolHead(workspaceId, identifier);
  const labels = [...new Set(body.release_labels ?? [])];
  const state = await readForPublish(toolStore, workspaceId, head.name, labels.length);
  const published = await publishTool(workspaceId, userId, {
    name: head.name,
    state,
    definition: body.tool_definition,
    execution: body.execution ?? null,
    commitMessage: body.commit_message ?? null,
    labels,
    externalIds: [],
    newHead: {
      description: head.description,
      folder_id: head.folder_id,
      user_id: head.user_id,
      user_email: head.user_email,
    },
    firstOnly: false,
  });
  return { success: true as const, version: toToolVersion(published.version, published.applied) };
}

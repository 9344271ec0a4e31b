import { randomUUID } from 'node:crypto';
import { type ExternalId, uniqueExternalIds } from '#shared/external-ids/external-ids.ts';
import { requireFolder } from '#shared/folders/require.ts';
import { notFound, payloadTooLarge } from '#shared/platform/errors.ts';
import {
  largestLabelEntry,
  MAX_HEAD_BYTES,
  MAX_VERSION_BYTES,
  publishVersion,
  readForPublish,
} from '#shared/versions/publish.ts';
import { findHeadById } from '#shared/versions/read.ts';
import type { HeadAndLatest } from '#shared/versions/store.ts';
import { storedJsonBytes } from '#shared/versions/store.ts';
import type { WorkflowGraph } from './definition.ts';
import { validateGraph } from './graph.ts';
import { WORKFLOW_KIND, type WorkflowHead, type WorkflowVersionRecord, workflowStore } from './registry.ts';
import type { CreateWorkflowBody } from './schemas.ts';
import { toCreatedView } from './views.ts';

/**
 * POST /rest/workflows: a new workflow, or a new version of one, on the shared publish of versioned
 * entities (shared/versions/publish.ts: external ids claimed first, versions 1..N without gaps under
 * concurrent publishes, labels moved by compare-and-set). The graph is checked whole (graph.ts), and the
 * folder given (a folder of the workspace, else 404), before anything is written. A version is stored in one item: one larger than MAX_VERSION_BYTES as JSON is a
 * 413.
 */
export type CreatedView = ReturnType<typeof toCreatedView>;

export interface GraphPublish {
  name: string;
  graph: WorkflowGraph;
  commitMessage: string | null;
  /** Set on the workflow when given (null takes it out of its folder). */
  folderId?: number | null;
  labels: string[];
  externalIds: ExternalId[];
  /** The workflow as read by the caller, when it has read it. */
  state?: HeadAndLatest<WorkflowHead, WorkflowVersionRecord>;
  baseVersion: number | null;
  /** The publishing user's e-mail address, recorded on the workflow when this publish creates it. */
  userEmail?: string | null;
}

export async function createWorkflow(
  workspaceId: number,
  userId: number,
  body: CreateWorkflowBody,
  userEmail: string | null = null,
): Promise<CreatedView> {
  const graph: WorkflowGraph = {
    nodes: body.nodes,
    edges: body.edges ?? [],
    required_input_variables: body.required_input_variables ?? {},
  };
  await validateGraph(graph);
  // The folder it is filed under must be one of the workspace's (404), checked with the target.
  const [name] = await Promise.all([
    targetName(workspaceId, body),
    requireFolder(workspaceId, body.folder_id),
  ]);
  return publishGraph(workspaceId, userId, {
    name,
    graph,
    commitMessage: body.commit_message ?? null,
    folderId: body.folder_id,
    labels: [...new Set(body.release_labels ?? [])],
    externalIds: uniqueExternalIds(body.external_ids ?? []),
    baseVersion: null,
    userEmail,
  });
}

/** The workflow a create publishes to: an existing one by id or name, else `name` (or a fresh one). */
async function targetName(workspaceId: number, body: CreateWorkflowBody): Promise<string> {
  if (body.workflow_id != null) {
    const head = await findHeadById(workflowStore, workspaceId, body.workflow_id);
    if (!head) throw notFound(`Workflow ${body.workflow_id} not found`);
    return head.name;
  }
  if (body.workflow_name != null) {
    const head = await workflowStore.getHead(workspaceId, body.workflow_name);
    if (!head) throw notFound(`Workflow ${body.workflow_name} not found`);
    return head.name;
  }
  return body.name ?? `workflow-${randomUUID().slice(0, 8)}`;
}

/** Writes a checked graph as the next version of the workflow `name`, creating it on the first. */
export async function publishGraph(
  workspaceId: number,
  userId: number,
  input: GraphPublish,
): Promise<CreatedView> {
  await requireFolder(workspaceId, input.folderId);
  const { name, graph, labels } = input;
  const draft: Omit<WorkflowVersionRecord, 'id' | 'workflow_id' | 'number'> = {
    workflow_name: name,
    // Each version gives its nodes and edges ids of their own.
    nodes: graph.nodes.map((node) => ({ id: randomUUID(), ...node })),
    edges: graph.edges.map((edge) => ({ id: randomUUID(), ...edge })),
    required_input_variables: graph.required_input_variables,
    commit_message: input.commitMessage,
    user_id: userId,
    created_at: Date.now(),
  };
  if (storedJsonBytes({ ...draft, id: 0, workflow_id: 0, number: 0 }) > MAX_VERSION_BYTES) {
    throw payloadTooLarge(`A workflow version is at most ${MAX_VERSION_BYTES} bytes as JSON`);
  }
  const state = input.state ?? (await readForPublish(workflowStore, workspaceId, name, labels.length));
  const largest = largestLabelEntry(WORKFLOW_KIND);
  const plannedLabels = {
    ...state.head?.labels,
    ...Object.fromEntries(labels.map((label) => [label, largest])),
  };
  if (storedJsonBytes(plannedLabels) > MAX_HEAD_BYTES) {
    throw payloadTooLarge(`A workflow's labels are at most ${MAX_HEAD_BYTES} bytes as JSON`);
  }
  const published = await publishVersion(workflowStore, workspaceId, state, {
    name,
    labels,
    externalIds: input.externalIds,
    build: ({ id, entityId, number }) => ({ ...draft, id, workflow_id: entityId, number }),
    newHead: { folder_id: input.folderId ?? null, user_id: userId, user_email: input.userEmail ?? null },
    headUpdate: { folder_id: input.folderId },
  });
  return toCreatedView(published.version, published.applied, published.externalIds, input.baseVersion);
}

import { invalid } from '#shared/platform/errors.ts';
import { jsonObject } from '#shared/platform/schemas.ts';
import { readVersion } from '#shared/versions/read.ts';
import type { WorkflowGraph, WorkflowNode } from './definition.ts';
import { validateGraph } from './graph.ts';
import { type CreatedView, publishGraph } from './publish.ts';
import { type WorkflowVersionRecord, workflowStore } from './registry.ts';
import type { NodeUpdate, PatchWorkflowBody } from './schemas.ts';

/**
 * PATCH /rest/workflows/{workflow_id_or_name}: a new version from a partial change of the latest.
 * `nodes` maps a node name to an update (a new node needs `node_type`) or to null (the node goes, with
 * the edges that touch it unless `edges` is given); a node's configuration is deep-merged (objects
 * merge key by key; anything else, arrays and null included, replaces), its dependencies replaced.
 * `required_input_variables` and `edges` replace when given. The change applies to `base_version` (a
 * 404 when the workflow has no such version), by default the latest; either way the new version is the
 * next number, so concurrent patches all land, each on the base it names.
 */
export async function patchWorkflow(
  workspaceId: number,
  userId: number,
  identifier: string,
  body: PatchWorkflowBody,
): Promise<CreatedView> {
  const { head, version: latest } = await readVersion(workflowStore, workspaceId, identifier, {});
  const base =
    body.base_version == null || body.base_version === latest.number
      ? latest
      : (await readVersion(workflowStore, workspaceId, String(head.id), { version: body.base_version }))
          .version;
  const graph = patchedGraph(base, body);
  await validateGraph(graph);
  return publishGraph(workspaceId, userId, {
    name: head.name,
    graph,
    commitMessage: body.commit_message ?? null,
    labels: [...new Set(body.release_labels ?? [])],
    externalIds: [],
    state: { head, latest },
    baseVersion: base.number,
  });
}

/** The base version's graph with the change applied (not yet checked). */
export function patchedGraph(base: WorkflowVersionRecord, body: PatchWorkflowBody): WorkflowGraph {
  const nodes = new Map<string, WorkflowNode>(base.nodes.map(({ id: _, ...node }) => [node.name, node]));
  const removed = new Set<string>();
  for (const [name, update] of Object.entries(body.nodes ?? {})) {
    const current = nodes.get(name);
    if (update === null) {
      if (!current) throw invalid(['body', 'nodes', name], `version ${base.number} has no node ${name}`);
      nodes.delete(name);
      removed.add(name);
    } else {
      nodes.set(name, current ? updatedNode(current, update) : newNode(name, update));
    }
  }
  const edges =
    body.edges ??
    base.edges
      .filter((edge) => !removed.has(edge.source_node_name) && !removed.has(edge.target_node_name))
      .map(({ id: _, ...edge }) => edge);
  return {
    nodes: [...nodes.values()],
    edges,
    required_input_variables: body.required_input_variables ?? base.required_input_variables,
  };
}

function newNode(name: string, update: NodeUpdate): WorkflowNode {
  if (update.node_type == null) {
    throw invalid(['body', 'nodes', name, 'node_type'], `node_type is required for the new node ${name}`);
  }
  return {
    name,
    node_type: update.node_type,
    configuration: update.configuration ?? {},
    dependencies: update.dependencies ?? [],
    is_output_node: update.is_output_node ?? false,
  };
}

function updatedNode(node: WorkflowNode, update: NodeUpdate): WorkflowNode {
  return {
    name: node.name,
    node_type: update.node_type ?? node.node_type,
    configuration: update.configuration
      ? deepMerge(node.configuration, update.configuration)
      : node.configuration,
    dependencies: update.dependencies ?? node.dependencies,
    is_output_node: update.is_output_node ?? node.is_output_node,
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  jsonObject.safeParse(value).success && !Array.isArray(value);

/**
 * `change` merged into `base`: objects key by key, anything else replaces. Built with fromEntries, so
 * a client's key (`__proto__` included) is always an own property.
 */
export function deepMerge(
  base: Record<string, unknown>,
  change: Record<string, unknown>,
): Record<string, unknown> {
  const merged = new Map(Object.entries(base));
  for (const [key, value] of Object.entries(change)) {
    const current = merged.get(key);
    merged.set(key, isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value);
  }
  return Object.fromEntries(merged);
}

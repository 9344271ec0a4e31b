import { readVersion } from '#shared/versions/read.ts';
import type { WorkflowGraph } from './definition.ts';
import { workflowStore } from './registry.ts';

/** What the run endpoint and the engine read of a workflow definition (registry.ts stores it). */
export interface WorkflowVersion {
  workflow_id: number;
  workflow_name: string;
  version_id: number;
  version_number: number;
  graph: WorkflowGraph;
  commit_message: string | null;
  /** Epoch milliseconds. */
  created_at: number;
}

/**
 * The version a run uses: `version`, else `label`, else the latest. `idOrName` is the workflow's name or
 * its numeric id (as the path gives it). A 404 AppError when the workspace has no such workflow,
 * version or label.
 */
export async function findWorkflowVersion(
  workspaceId: number,
  idOrName: string,
  select: { version?: number; label?: string },
): Promise<WorkflowVersion> {
  // A version wins over a label, as documented: the lookup reads one of them.
  const selector = select.version !== undefined ? { version: select.version } : { label: select.label };
  const { head, version } = await readVersion(workflowStore, workspaceId, idOrName, selector);
  return {
    workflow_id: head.id,
    workflow_name: head.name,
    version_id: version.id,
    version_number: version.number,
    graph: {
      nodes: version.nodes,
      edges: version.edges,
      required_input_variables: version.required_input_variables,
    },
    commit_message: version.commit_message,
    created_at: version.created_at,
  };
}

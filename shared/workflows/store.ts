import type { WorkflowGraph } from './definition.ts';

/**
 * CONTRACT STUB (issue 9): implemented by the registry part, on the versions-and-labels module shared
 * with prompt templates. What the run endpoint and the engine read of a workflow definition.
 */
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
  _workspaceId: number,
  _idOrName: string,
  _select: { version?: number; label?: string },
): Promise<WorkflowVersion> {
  throw new Error('not implemented');
}

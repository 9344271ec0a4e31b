export type NodeStatus = 'QUEUED' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED';

export interface GraphNode {
  name: string;
  type: string;
}

/** One arrow: a dependency or a conditional edge of the version (one per source and target). */
export interface GraphEdge {
  source: string;
  target: string;
  conditional: boolean;
}

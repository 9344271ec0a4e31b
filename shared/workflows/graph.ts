import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from './definition.ts';

/**
 * CONTRACT STUB (issue 9): implemented by the graph-and-executors part.
 *
 * validateGraph: throws a 422 AppError (errors.ts `invalid` / detail entries located under
 * ['body', 'nodes', i, ...] or ['body', 'edges', i, ...]) for duplicate node names, a dependency that is
 * neither a node nor a declared input variable, a cycle (through dependencies and edges), no output
 * node, an edge naming an unknown node, a known node type whose configuration fails its schema, more
 * than MAX_NODES nodes.
 *
 * planGraph: the graph as the engine walks it (assumes a valid graph).
 */
export function validateGraph(_graph: WorkflowGraph): void {
  throw new Error('not implemented');
}

export interface NodePlan {
  node: WorkflowNode;
  /** Nodes this one waits for: its node dependencies and the sources of its in-edges, without repeats. */
  predecessors: string[];
  /** Dependencies that are input variables (not nodes). */
  inputDependencies: string[];
  /** Edges into this node (each is conditional: an edge has at least one conditional). */
  inEdges: WorkflowEdge[];
  /** Nodes that wait for this one, without repeats. */
  successors: string[];
}

export interface GraphPlan {
  nodes: ReadonlyMap<string, NodePlan>;
  /** Nodes with no predecessors, in declaration order. */
  roots: string[];
  /** Output nodes in declaration order. */
  outputNodes: string[];
}

export function planGraph(_graph: WorkflowGraph): GraphPlan {
  throw new Error('not implemented');
}

import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from './definition.ts';

/**
 * The graph as the engine walks it: who waits for whom. Apart from validateGraph (graph.ts), so that what
 * runs a graph does not carry every node type's configuration schema with it.
 */
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

/**
 * The graph as the engine walks it (assumes validateGraph passed). Lists keep declaration order
 * (dependencies first, then edges); each in-edge's conditionals are sorted by `position`.
 */
export function planGraph(graph: WorkflowGraph): GraphPlan {
  const names = new Set(graph.nodes.map((node) => node.name));
  const plans = new Map<string, NodePlan>();
  for (const node of graph.nodes) {
    const predecessors = new Set<string>();
    const inputDependencies = new Set<string>();
    for (const dependency of node.dependencies) {
      (names.has(dependency) ? predecessors : inputDependencies).add(dependency);
    }
    plans.set(node.name, {
      node,
      predecessors: [...predecessors],
      inputDependencies: [...inputDependencies],
      inEdges: [],
      successors: [],
    });
  }
  for (const edge of graph.edges) {
    const plan = plans.get(edge.target_node_name);
    if (!plan) continue;
    if (!plan.predecessors.includes(edge.source_node_name)) plan.predecessors.push(edge.source_node_name);
    plan.inEdges.push({
      ...edge,
      conditionals: [...edge.conditionals].sort((a, b) => a.position - b.position),
    });
  }
  for (const [name, plan] of plans) {
    for (const predecessor of plan.predecessors) {
      const before = plans.get(predecessor);
      if (before && !before.successors.includes(name)) before.successors.push(name);
    }
  }
  const roots = graph.nodes.filter((node) => plans.get(node.name)?.predecessors.length === 0);
  return {
    nodes: plans,
    roots: roots.map((node) => node.name),
    outputNodes: graph.nodes.filter((node) => node.is_output_node).map((node) => node.name),
  };
}

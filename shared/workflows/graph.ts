import { AppError, clip, type ErrorDetail } from '#shared/platform/errors.ts';
import {
  MAX_NODES,
  type Operand,
  type WorkflowEdge,
  type WorkflowGraph,
  type WorkflowNode,
} from './definition.ts';
import { executorOf } from './nodes/registry.ts';
import { jsonPathEngine } from './nodes/values.ts';

/**
 * The rules that look at a workflow graph as a whole (the plan the engine walks is plan.ts).
 *
 * validateGraph throws one 422 listing every problem found (each with its `loc` under ['body', 'nodes',
 * i, ...] or ['body', 'edges', i, ...]); its message is the first problem's. The rules:
 * - at most MAX_NODES nodes, at least one output node;
 * - node names are unique, and no node is named like a declared input variable (a `source` or a
 *   dependency naming it would be ambiguous);
 * - a dependency names a node or a key of `required_input_variables`;
 * - an edge names known source and target nodes, and never the same node twice;
 * - a conditional's `source` operand names an input variable, the edge's source node or a node the
 *   source waits for (directly or not), so its value is final when the edge is evaluated (as the
 *   source ends);
 * - a conditional's `json_path` is a JSONPath (RFC 9535) expression;
 * - no cycle through dependencies and edges together (the message names the nodes on it);
 * - a node of a known type (one this service runs) has a configuration its schema accepts; any other type
 *   is accepted and fails when a run reaches it.
 */
const MAX_DETAIL = 20;
/** Names echoed in messages are shortened to this many characters. */
const NAME_CLIP = 64;

const quoted = (name: string) => `"${clip(name, NAME_CLIP)}"`;

export async function validateGraph(graph: WorkflowGraph): Promise<void> {
  if (graph.nodes.length > MAX_NODES) {
    fail([
      {
        loc: ['body', 'nodes'],
        msg: `a workflow has at most ${MAX_NODES} nodes; this one has ${graph.nodes.length}`,
        type: 'too_big',
      },
    ]);
  }
  const known: Known = { nodes: new Map(), inputs: new Set(Object.keys(graph.required_input_variables)) };
  const problems = nameProblems(graph.nodes, known);
  problems.push(...dependencyProblems(graph.nodes, known), ...edgeProblems(graph.edges, known));
  const cycle = findCycle(graph.nodes, graph.edges, known.nodes);
  if (cycle) {
    problems.push({
      loc: cycle.loc,
      msg: `the graph has a cycle: ${describeCycle(cycle.names)}`,
      type: 'cycle',
    });
  } else {
    problems.push(...operandSourceProblems(graph, known));
  }
  problems.push(...(await jsonPathProblems(graph.edges)), ...(await configurationProblems(graph.nodes)));
  if (problems.length > 0) fail(problems);
}

/** The names a graph may refer to: its nodes (name -> first index) and its input variables. */
interface Known {
  nodes: Map<string, number>;
  inputs: ReadonlySet<string>;
}

/** Fills `known.nodes` on the way. */
function nameProblems(nodes: WorkflowNode[], known: Known): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  nodes.forEach((node, i) => {
    const first = known.nodes.get(node.name);
    if (first !== undefined) {
      problems.push({
        loc: ['body', 'nodes', i, 'name'],
        msg: `node name ${quoted(node.name)} is used twice (nodes ${first} and ${i})`,
        type: 'duplicate_name',
      });
    } else {
      known.nodes.set(node.name, i);
    }
    if (known.inputs.has(node.name)) {
      problems.push({
        loc: ['body', 'nodes', i, 'name'],
        msg: `node ${quoted(node.name)} has the name of an input variable; rename one of them`,
        type: 'ambiguous_name',
      });
    }
  });
  if (!nodes.some((node) => node.is_output_node)) {
    problems.push({
      loc: ['body', 'nodes'],
      msg: 'at least one node must be an output node (is_output_node: true)',
      type: 'missing_output_node',
    });
  }
  return problems;
}

function dependencyProblems(nodes: WorkflowNode[], known: Known): ErrorDetail[] {
  return nodes.flatMap((node, i) =>
    node.dependencies.flatMap((dependency, j) =>
      known.nodes.has(dependency) || known.inputs.has(dependency)
        ? []
        : [
            {
              loc: ['body', 'nodes', i, 'dependencies', j],
              msg: `node ${quoted(node.name)} depends on ${quoted(dependency)}, which is neither a node nor an input variable of required_input_variables`,
              type: 'unknown_dependency',
            },
          ],
    ),
  );
}

function edgeProblems(edges: WorkflowEdge[], known: Known): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  edges.forEach((edge, i) => {
    for (const end of ['source_node_name', 'target_node_name'] as const) {
      if (known.nodes.has(edge[end])) continue;
      problems.push({
        loc: ['body', 'edges', i, end],
        msg: `edge ${i} names ${quoted(edge[end])} as its ${end === 'source_node_name' ? 'source' : 'target'}, which is not a node`,
        type: 'unknown_node',
      });
    }
    if (edge.source_node_name === edge.target_node_name) {
      problems.push({
        loc: ['body', 'edges', i, 'target_node_name'],
        msg: `edge ${i} goes from node ${quoted(edge.source_node_name)} to itself`,
        type: 'self_edge',
      });
    }
  });
  return problems;
}

async function jsonPathProblems(edges: WorkflowEdge[]): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  for (const [i, edge] of edges.entries()) {
    for (const [k, conditional] of edge.conditionals.entries()) {
      for (const side of ['left_config', 'right_config'] as const) {
        const operand = conditional[side];
        if (!('json_path' in operand) || operand.json_path === undefined) continue;
        const problem = (await jsonPathEngine()).problem(operand.json_path);
        if (problem) {
          problems.push({
            loc: ['body', 'edges', i, 'conditionals', k, side, 'json_path'],
            msg: `edge ${i}: ${problem}`,
            type: 'invalid_json_path',
          });
        }
      }
    }
  }
  return problems;
}

/** A known type's configuration against its schema: the first few issues of each node. */
async function configurationProblems(nodes: WorkflowNode[]): Promise<ErrorDetail[]> {
  const parsed = await Promise.all(
    nodes.map((node) => executorOf(node.node_type)?.config.safeParseAsync(node.configuration)),
  );
  return nodes.flatMap((node, i) => {
    const result = parsed[i];
    if (!result || result.success) return [];
    return result.error.issues.slice(0, 5).map((issue) => ({
      loc: [
        'body',
        'nodes',
        i,
        'configuration',
        ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part)),
      ],
      msg: `invalid configuration of ${node.node_type} node ${quoted(node.name)}: ${issue.message}`,
      type: issue.code,
    }));
  });
}

/** `"a" -> "b" -> "a"`; a long cycle shows its first and last few nodes. */
function describeCycle(names: string[]): string {
  const shown =
    names.length <= 12
      ? names.map(quoted)
      : [...names.slice(0, 6).map(quoted), `... (${names.length - 1} nodes)`, ...names.slice(-4).map(quoted)];
  return shown.join(' -> ');
}

function fail(problems: ErrorDetail[]): never {
  const [first] = problems as [ErrorDetail];
  const where = first.loc.map((part) => clip(String(part), NAME_CLIP)).join('.');
  throw new AppError(
    422,
    'validation_error',
    `Invalid ${where}: ${first.msg}`,
    problems.slice(0, MAX_DETAIL),
  );
}

/** A link "to waits for from": a node dependency or an edge. `loc` is where the link is declared. */
interface Link {
  from: string;
  loc: ErrorDetail['loc'];
}

function incomingLinks(nodes: WorkflowNode[], edges: WorkflowEdge[], known: ReadonlyMap<string, number>) {
  const links = new Map<string, Link[]>(nodes.map((node) => [node.name, []]));
  nodes.forEach((node, i) => {
    node.dependencies.forEach((dependency, j) => {
      if (known.has(dependency)) {
        links.get(node.name)?.push({ from: dependency, loc: ['body', 'nodes', i, 'dependencies', j] });
      }
    });
  });
  edges.forEach((edge, i) => {
    if (known.has(edge.source_node_name)) {
      links.get(edge.target_node_name)?.push({ from: edge.source_node_name, loc: ['body', 'edges', i] });
    }
  });
  return links;
}

/**
 * The first cycle found through dependencies and edges, as the names along it (the first name repeated
 * at the end) and where its closing link is declared. Iterative, so a 200-node chain cannot overflow.
 */
function findCycle(
  nodes: WorkflowNode[],
  edges: WorkflowEdge[],
  known: ReadonlyMap<string, number>,
): { names: string[]; loc: ErrorDetail['loc'] } | null {
  const links = incomingLinks(nodes, edges, known);
  const state = new Map<string, 'open' | 'done'>();
  for (const start of links.keys()) {
    if (state.has(start)) continue;
    // Walks "waits for" links; `path` holds the nodes open on the current walk.
    const path: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 'open');
    while (path.length > 0) {
      const top = path[path.length - 1] as { name: string; next: number };
      const out = links.get(top.name) ?? [];
      if (top.next >= out.length) {
        state.set(top.name, 'done');
        path.pop();
        continue;
      }
      const link = out[top.next++] as Link;
      const seen = state.get(link.from);
      if (seen === 'done') continue;
      if (seen === 'open') {
        const from = path.findIndex((step) => step.name === link.from);
        // The walk goes against the arrows; reversed, the cycle reads in execution order. It is told
        // from the node declared first, and located at the link into that node.
        const names = path
          .slice(from)
          .map((step) => step.name)
          .reverse();
        const start = names.reduce(
          (best, name, i) => ((known.get(name) ?? 0) < (known.get(names[best] as string) ?? 0) ? i : best),
          0,
        );
        const ordered = [...names.slice(start), ...names.slice(0, start)];
        const first = ordered[0] as string;
        const last = ordered[ordered.length - 1] as string;
        const closing = (links.get(first) ?? []).find((candidate) => candidate.from === last) as Link;
        return { names: [...ordered, first], loc: closing.loc };
      }
      state.set(link.from, 'open');
      path.push({ name: link.from, next: 0 });
    }
  }
  return null;
}

/** Conditional operands whose `source` could be unknown when their edge is evaluated (acyclic graph). */
function operandSourceProblems(graph: WorkflowGraph, { nodes: known, inputs }: Known): ErrorDetail[] {
  const links = incomingLinks(graph.nodes, graph.edges, known);
  const ancestors = new Map<string, Set<string>>();
  const ancestorsOf = (name: string): Set<string> => {
    const cached = ancestors.get(name);
    if (cached) return cached;
    const found = new Set<string>();
    const stack = [name];
    while (stack.length > 0) {
      for (const link of links.get(stack.pop() as string) ?? []) {
        if (found.has(link.from)) continue;
        found.add(link.from);
        stack.push(link.from);
      }
    }
    ancestors.set(name, found);
    return found;
  };
  const problems: ErrorDetail[] = [];
  graph.edges.forEach((edge, i) => {
    if (!known.has(edge.target_node_name) || !known.has(edge.source_node_name)) return;
    edge.conditionals.forEach((conditional, k) => {
      for (const side of ['left_config', 'right_config'] as const) {
        const source = sourceOf(conditional[side]);
        if (source === undefined || inputs.has(source)) continue;
        // The edge is evaluated when its source ends: what the source waits for is final by then.
        if (source === edge.source_node_name) continue;
        if (known.has(source) && ancestorsOf(edge.source_node_name).has(source)) continue;
        problems.push({
          loc: ['body', 'edges', i, 'conditionals', k, side, 'source'],
          msg: known.has(source)
            ? `edge ${i} reads node ${quoted(source)}, which node ${quoted(edge.source_node_name)} does not wait for; make it a dependency`
            : `edge ${i} reads ${quoted(source)}, which is neither a node nor an input variable of required_input_variables`,
          type: 'unknown_source',
        });
      }
    });
  });
  return problems;
}

const sourceOf = (operand: Operand): string | undefined => ('source' in operand ? operand.source : undefined);

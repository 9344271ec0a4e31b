import { Graph, layout } from '@dagrejs/dagre';
import { useMemo } from 'preact/hooks';
import type { GraphEdge, GraphNode, NodeStatus } from './types.ts';

export interface WorkflowGraphProps {
  nodes: readonly GraphNode[];
  edges: readonly GraphEdge[];
  /** A node's status in the run being watched (absent: no run). */
  statuses: Readonly<Record<string, NodeStatus | undefined>>;
  /** Why a node was skipped (the results' error_message), written on the edges into it. */
  skipReasons: Readonly<Record<string, string | undefined>>;
  selected: string;
  onSelect(name: string): void;
}

const NODE_WIDTH = 170;
const NODE_HEIGHT = 44;

/**
 * A version's nodes and edges laid out by dagre (top to bottom) and drawn as SVG by Preact: names are
 * text nodes, each node a button (focusable, Enter/Space selects it), coloured by its run status.
 */
export function WorkflowGraph(props: WorkflowGraphProps) {
  const placed = useMemo(() => place(props.nodes, props.edges), [props.nodes, props.edges]);
  return (
    <svg
      class="workflow-graph"
      width={placed.width}
      height={placed.height}
      viewBox={`0 0 ${placed.width} ${placed.height}`}
    >
      <title>Workflow graph: each node is a button</title>
      <defs>
        <marker
          id="wf-arrow"
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" class="wf-arrow" />
        </marker>
      </defs>
      {placed.edges.map((edge) => {
        const reason = props.statuses[edge.target] === 'SKIPPED' ? props.skipReasons[edge.target] : undefined;
        const middle = edge.points[Math.floor(edge.points.length / 2)];
        return (
          <g
            key={`${edge.source}->${edge.target}`}
            class={`wf-edge${edge.conditional ? ' conditional' : ''}`}
          >
            <polyline
              points={edge.points.map((point) => `${point.x},${point.y}`).join(' ')}
              marker-end="url(#wf-arrow)"
            />
            {reason && middle ? (
              <text class="wf-skip-reason" x={middle.x + 6} y={middle.y}>
                {reason}
              </text>
            ) : null}
          </g>
        );
      })}
      {placed.nodes.map((node) => {
        const status = props.statuses[node.name];
        const selected = node.name === props.selected;
        return (
          // biome-ignore lint/a11y/useSemanticElements: an SVG group has no <button>; it takes the role, focus and keys.
          <g
            key={node.name}
            class={`wf-node status-${(status ?? 'none').toLowerCase()}${selected ? ' selected' : ''}`}
            transform={`translate(${node.x - NODE_WIDTH / 2},${node.y - NODE_HEIGHT / 2})`}
            role="button"
            tabindex={0}
            aria-pressed={selected}
            data-node={node.name}
            data-status={status ?? ''}
            onClick={() => props.onSelect(node.name)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter' && event.key !== ' ') return;
              event.preventDefault();
              props.onSelect(node.name);
            }}
          >
            <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx="6" />
            <text x="10" y="18" class="wf-node-name">
              {clip(node.name, 22)}
            </text>
            <text x="10" y="35" class="wf-node-type">
              {node.type}
              {status ? ` · ${status}` : ''}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

const clip = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text;

interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  points: { x: number; y: number }[];
}

function place(nodes: readonly GraphNode[], edges: readonly GraphEdge[]) {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 50, marginx: 16, marginy: 16 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.name, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const known = new Set(nodes.map((node) => node.name));
  for (const edge of edges)
    if (known.has(edge.source) && known.has(edge.target)) graph.setEdge(edge.source, edge.target);
  layout(graph);
  const label = graph.graph();
  return {
    width: Math.ceil(label.width ?? NODE_WIDTH),
    height: Math.ceil(label.height ?? NODE_HEIGHT),
    nodes: nodes.map((node) => {
      const at = graph.node(node.name);
      return { name: node.name, type: node.type, x: at.x, y: at.y };
    }),
    edges: edges
      .filter((edge) => known.has(edge.source) && known.has(edge.target))
      .map(
        (edge): PlacedEdge => ({
          ...edge,
          points: ((graph.edge(edge.source, edge.target)?.points ?? []) as { x: number; y: number }[]).map(
            ({ x, y }) => ({
              x,
              y,
            }),
          ),
        }),
      ),
  };
}

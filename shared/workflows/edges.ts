import type { WorkflowEdge } from './definition.ts';

/**
 * CONTRACT STUB (issue 9): implemented by the graph-and-executors part.
 *
 * Whether an edge is taken, given the values a `source` operand may name (node outputs and input
 * variables; a SKIPPED or FAILED source reads as null). Conditionals are evaluated in `position` order;
 * `is_and` needs all of them, otherwise any one.
 */
export function isEdgeTaken(_edge: WorkflowEdge, _valueOf: (name: string) => unknown): boolean {
  throw new Error('not implemented');
}

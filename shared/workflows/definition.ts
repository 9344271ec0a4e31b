import { ownKeysRecord, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * A workflow version's graph as clients send it and as it is stored: nodes (steps) and edges
 * (conditional gates between them), with the input variables a run is expected to supply. Field names
 * are PromptLayer's. Shape checks live here; the rules that look at the graph as a whole (names,
 * dependencies, cycles, output nodes, node configurations) are in graph.ts.
 */
export const MAX_NODES = 200;

export const workflowNodeSchema = z
  .object({
    name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
    /** Free text: a known type has its configuration checked; any other fails at run time. */
    node_type: wellFormedString().check(z.minLength(1), z.maxLength(64)),
    configuration: ownKeysRecord(z.string(), z.unknown()),
    /** Names of nodes or input variables this node reads. */
    dependencies: z._default(
      z.array(wellFormedString().check(z.minLength(1), z.maxLength(255))).check(z.maxLength(MAX_NODES * 2)),
      [],
    ),
    is_output_node: z.boolean(),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowNode' });
export type WorkflowNode = z.infer<typeof workflowNodeSchema>;

export const EDGE_OPERATORS = [
  '=',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  'in',
  'not_in',
  'is_null',
  'is_not_null',
] as const;
export type EdgeOperator = (typeof EDGE_OPERATORS)[number];

/** One side of a comparison: a constant, or a node's or input's value (optionally a JSONPath into it). */
export const operandSchema = z.union([
  z.strictObject({ static_value: z.unknown() }),
  z.strictObject({
    source: wellFormedString().check(z.minLength(1), z.maxLength(255)),
    json_path: z.optional(wellFormedString().check(z.minLength(1), z.maxLength(1024))),
  }),
]);
export type Operand = z.infer<typeof operandSchema>;

export const edgeConditionalSchema = z
  .object({
    position: z.int().check(z.gte(0)),
    operator: z.enum(EDGE_OPERATORS),
    left_config: operandSchema,
    right_config: operandSchema,
  })
  .clone()
  .register(z.globalRegistry, { id: 'EdgeConditional' });
export type EdgeConditional = z.infer<typeof edgeConditionalSchema>;

export const workflowEdgeSchema = z
  .object({
    source_node_name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
    target_node_name: wellFormedString().check(z.minLength(1), z.maxLength(255)),
    /** All conditionals must hold (true) or any one (false). */
    is_and: z.boolean(),
    conditionals: z.array(edgeConditionalSchema).check(z.minLength(1), z.maxLength(100)),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowEdge' });
export type WorkflowEdge = z.infer<typeof workflowEdgeSchema>;

/** Input variable name -> type name as the client declares it (e.g. "string"); types are not enforced. */
export const requiredInputVariablesSchema = ownKeysRecord(
  wellFormedString().check(z.minLength(1), z.maxLength(255)),
  z.string().check(z.maxLength(64)),
);

export interface WorkflowGraph {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  required_input_variables: Record<string, string>;
}

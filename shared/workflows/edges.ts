import type { EdgeConditional, EdgeOperator, Operand, WorkflowEdge } from './definition.ts';
import { jsonIfText, jsonPathEngine, numberOf, valuesEqual } from './nodes/values.ts';

/**
 * Whether an edge is taken, given the values a `source` operand may name (node outputs and input
 * variables; a SKIPPED or FAILED source reads as null, as does a name `readValue` does not know).
 * Conditionals are evaluated in `position` order; `is_and` needs all of them, otherwise any one.
 * docs/workflow-nodes.md states the contract.
 */
export async function isEdgeTaken(
  edge: WorkflowEdge,
  readValue: (name: string) => unknown,
): Promise<boolean> {
  const conditionals = [...edge.conditionals].sort((a, b) => a.position - b.position);
  for (const conditional of conditionals) {
    // `is_and` stops at the first that fails, otherwise at the first that holds.
    if ((await conditionHolds(conditional, readValue)) !== edge.is_and) return !edge.is_and;
  }
  return edge.is_and;
}

export async function conditionHolds(
  conditional: EdgeConditional,
  readValue: (name: string) => unknown,
): Promise<boolean> {
  const left = await operandValue(conditional.left_config, readValue);
  if (conditional.operator === 'is_null') return left === null;
  if (conditional.operator === 'is_not_null') return left !== null;
  return compare(conditional.operator, left, await operandValue(conditional.right_config, readValue));
}

/**
 * An operand's value: its static value, or its source's value; with `json_path`, the first match in it
 * (a string holding a JSON object or array is parsed first), null when nothing matches.
 */
async function operandValue(operand: Operand, readValue: (name: string) => unknown): Promise<unknown> {
  if ('static_value' in operand) return operand.static_value ?? null;
  const value = readValue(operand.source) ?? null;
  if (operand.json_path === undefined) return value;
  const engine = await jsonPathEngine();
  try {
    return engine.matches(jsonIfText(value), operand.json_path)[0] ?? null;
  } catch {
    // An invalid path is refused when the version is created; one stored before reads as no match.
    return null;
  }
}

function compare(operator: Exclude<EdgeOperator, 'is_null' | 'is_not_null'>, left: unknown, right: unknown) {
  switch (operator) {
    case '=':
      return valuesEqual(left, right);
    case '!=':
      return !valuesEqual(left, right);
    case 'in':
      return contains(right, left);
    case 'not_in':
      return !contains(right, left);
    default:
      return numericCompare(operator, left, right);
  }
}

/** `needle in haystack`: membership in an array (values equal as for `=`), or a substring of a string. */
function contains(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) return haystack.some((item) => valuesEqual(item, needle));
  if (typeof haystack === 'string') {
    if (typeof needle === 'string') return haystack.includes(needle);
    if (typeof needle === 'number' || typeof needle === 'boolean') return haystack.includes(String(needle));
  }
  return false;
}

function numericCompare(operator: '<' | '>' | '<=' | '>=', left: unknown, right: unknown): boolean {
  const x = numberOf(left);
  const y = numberOf(right);
  if (x === undefined || y === undefined) return false;
  switch (operator) {
    case '<':
      return x < y;
    case '>':
      return x > y;
    case '<=':
      return x <= y;
    case '>=':
      return x >= y;
  }
}

/**
 * A typical starting configuration per column type, reading the given source columns: the new-report
 * form fills its generated fields with it (the fields themselves come from the type's schema, GET
 * /reports/column-types).
 */
export const STARTING_CONFIGURATIONS: Record<string, (a: string, b: string) => Record<string, unknown>> = {
  PROMPT_TEMPLATE: () => ({ template: { name: 'my-prompt', version_number: 1 } }),
  LLM_ASSERTION: (a) => ({ source: a, prompt: 'The answer is polite' }),
  COMPARE: (a, b) => ({ sources: [a, b], comparison_type: { type: 'STRING' } }),
  CONTAINS: (a) => ({ source: a, value: 'text' }),
  REGEX: (a) => ({ source: a, regex_pattern: '^\\w+' }),
  REGEX_EXTRACTION: (a) => ({ source: a, regex_pattern: '\\d+' }),
  JSON_PATH: (a) => ({ source: a, json_path: '$.answer' }),
  PARSE_VALUE: (a) => ({ source: a, type: 'number' }),
  ASSERT_VALID: (a) => ({ source: a, type: 'object' }),
  CODE_EXECUTION: (a) => ({ code: `return String(data[${JSON.stringify(a)}]).length;` }),
  COALESCE: (a, b) => ({ sources: [a, b] }),
  COMBINE_COLUMNS: (a, b) => ({ sources: [a, b] }),
  COUNT: (a) => ({ source: a, type: 'words' }),
  MATH_OPERATOR: (a) => ({ sources: [a], operator: 'gt', value: 0.5 }),
  MIN_MAX: (a) => ({ source: a, type: 'max' }),
  ABSOLUTE_NUMERIC_DISTANCE: (a, b) => ({ sources: [a, b] }),
  VARIABLE: () => ({ value: { type: 'string', value: 'text' } }),
  ENDPOINT: () => ({ url: 'https://example.com/evaluate' }),
};

/**
 * The column types a report can hold here (docs/reports.md, "Columns") and each one's configuration as
 * documented (docs/workflow-nodes.md, docs/providers.md, docs/code-execution.md): a starting
 * configuration and a line on its fields. The API publishes no schema per type (POST /reports takes
 * `configuration` as any object and checks it against the executor's schema), so the form edits the
 * configuration as JSON and the API's answer validates it.
 */
export interface ColumnType {
  /** What the column's value is. */
  summary: string;
  /** The documented fields, in a line. */
  fields: string;
  /** A configuration to start from, reading these source columns. */
  template: (a: string, b: string) => Record<string, unknown>;
}

export const COLUMN_TYPES: Record<string, ColumnType> = {
  PROMPT_TEMPLATE: {
    summary: "a prompt version's answer to the row",
    fields:
      'template {name, version_number? | label?} or inline_template; prompt_template_variable_mappings {variable: column}; engine {provider, model, parameters?}',
    template: () => ({ template: { name: 'my-prompt', version_number: 1 } }),
  },
  LLM_ASSERTION: {
    summary: 'a model says whether the value satisfies an assertion (boolean)',
    fields: 'source; prompt (text or list) | prompt_source; engine {provider, model, parameters?}',
    template: (a) => ({ source: a, prompt: 'The answer is polite' }),
  },
  COMPARE: {
    summary: 'whether two values are equal (boolean)',
    fields: 'sources [a, b]; comparison_type {type: STRING | JSON, json_path?}',
    template: (a, b) => ({ sources: [a, b], comparison_type: { type: 'STRING' } }),
  },
  CONTAINS: {
    summary: 'whether the text contains a value, ignoring case (boolean)',
    fields: 'source; value | value_source',
    template: (a) => ({ source: a, value: 'text' }),
  },
  REGEX: {
    summary: 'whether a pattern matches (boolean)',
    fields: 'source; regex_pattern',
    template: (a) => ({ source: a, regex_pattern: '^\\w+' }),
  },
  REGEX_EXTRACTION: {
    summary: 'every match of a pattern (array)',
    fields: 'source; regex_pattern',
    template: (a) => ({ source: a, regex_pattern: '\\d+' }),
  },
  JSON_PATH: {
    summary: 'the first (or every) match of a JSONPath',
    fields: 'source; json_path; return_first_match? (default true)',
    template: (a) => ({ source: a, json_path: '$.answer' }),
  },
  PARSE_VALUE: {
    summary: 'the value as another type',
    fields: 'source; type: string | number | boolean | object',
    template: (a) => ({ source: a, type: 'number' }),
  },
  ASSERT_VALID: {
    summary: 'whether the value is a valid object, number or SQL (boolean)',
    fields: 'source; type: object | number | sql',
    template: (a) => ({ source: a, type: 'object' }),
  },
  CODE_EXECUTION: {
    summary: "JavaScript's answer, reading the row as `data`",
    fields: 'code (a function body); language JAVASCRIPT; timeout_seconds 1..60',
    template: (a) => ({ code: `return String(data[${JSON.stringify(a)}]).length;` }),
  },
  COALESCE: {
    summary: 'the first value that is not null',
    fields: 'sources [a, b, ...] (2 to 100)',
    template: (a, b) => ({ sources: [a, b] }),
  },
  COMBINE_COLUMNS: {
    summary: 'an object of the values by name',
    fields: 'sources [a, ...] (1 to 100)',
    template: (a, b) => ({ sources: [a, b] }),
  },
  COUNT: {
    summary: 'how many chars, words, sentences or paragraphs (number)',
    fields: 'source; type: chars | words | sentences | paragraphs',
    template: (a) => ({ source: a, type: 'words' }),
  },
  MATH_OPERATOR: {
    summary: 'a comparison of numbers (boolean)',
    fields: 'sources [a] with value, or [a, b]; operator: lt | le | gt | ge',
    template: (a) => ({ sources: [a], operator: 'gt', value: 0.5 }),
  },
  MIN_MAX: {
    summary: 'the smallest or largest number of an array',
    fields: 'source; type: min | max; json_path?',
    template: (a) => ({ source: a, type: 'max' }),
  },
  ABSOLUTE_NUMERIC_DISTANCE: {
    summary: '|a - b| (number)',
    fields: 'sources [a, b]',
    template: (a, b) => ({ sources: [a, b] }),
  },
  VARIABLE: {
    summary: 'a fixed value',
    fields: 'value {type: string | json, value}',
    template: () => ({ value: { type: 'string', value: 'text' } }),
  },
  ENDPOINT: {
    summary: "an HTTP endpoint's answer to the row (POSTed as JSON)",
    fields: 'url; headers?',
    template: () => ({ url: 'https://example.com/evaluate' }),
  },
};

export const COLUMN_TYPE_NAMES = Object.keys(COLUMN_TYPES);

import * as z from '#shared/platform/zod.ts';
import { executorOf } from '#shared/workflows/nodes/registry.ts';
import { COLUMN_REFERENCE_FIELDS } from './columns.ts';
import { REPORT_COLUMN_TYPES, type ReportColumnType } from './records.ts';

/**
 * The column types a report can run here (GET /reports/column-types), each with a line on what its
 * value is and its configuration's JSON Schema (draft 2020-12), made from the executor's own zod schema:
 * the one POST /reports checks. Cross-field rules (exactly one of `template` and `inline_template`,
 * ...) are not expressible there: the API's 400 still has the last word.
 */
const DESCRIPTIONS: Partial<Record<ReportColumnType, string>> = {
  PROMPT_TEMPLATE: "a prompt version's answer to the row",
  LLM_ASSERTION: 'a model says whether the value satisfies an assertion (boolean)',
  COMPARE: 'whether two values are equal (boolean)',
  CONTAINS: 'whether the text contains a value, ignoring case (boolean)',
  REGEX: 'whether a pattern matches (boolean)',
  REGEX_EXTRACTION: 'every match of a pattern (array)',
  JSON_PATH: 'the first (or every) match of a JSONPath',
  PARSE_VALUE: 'the value as another type',
  ASSERT_VALID: 'whether the value is a valid object, number or SQL (boolean)',
  CODE_EXECUTION: "JavaScript's answer, reading the row as `data`",
  COALESCE: 'the first value that is not null',
  COMBINE_COLUMNS: 'an object of the values by name',
  COUNT: 'how many chars, words, sentences or paragraphs (number)',
  MATH_OPERATOR: 'a comparison of numbers (boolean)',
  MIN_MAX: 'the smallest or largest number of an array',
  ABSOLUTE_NUMERIC_DISTANCE: '|a - b| (number)',
  VARIABLE: 'a fixed value',
  ENDPOINT: "an HTTP endpoint's answer to the row (POSTed as JSON)",
};

export interface ColumnTypeView {
  column_type: ReportColumnType;
  description: string;
  configuration_schema: Record<string, unknown>;
  /** Top-level configuration fields whose strings name dataset or earlier columns. */
  column_reference_fields: string[];
}

let computed: ColumnTypeView[] | undefined;

/** Every supported type, in REPORT_COLUMN_TYPES order; the schemas are converted once per instance. */
export function columnTypes(): ColumnTypeView[] {
  computed ??= REPORT_COLUMN_TYPES.flatMap((type) => {
    const executor = executorOf(type);
    if (!executor) return [];
    const schema = z.toJSONSchema(executor.config, { io: 'input', unrepresentable: 'any' });
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    return [
      {
        column_type: type,
        description: DESCRIPTIONS[type] ?? type,
        configuration_schema: schema as Record<string, unknown>,
        column_reference_fields: COLUMN_REFERENCE_FIELDS.filter((field) => Object.hasOwn(properties, field)),
      },
    ];
  });
  return computed;
}

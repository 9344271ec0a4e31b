import { badRequest, clip, forbidden, payloadTooLarge } from '#shared/platform/errors.ts';
import { storedJsonBytes } from '#shared/platform/json.ts';
import { executorOf } from '#shared/workflows/nodes/registry.ts';
import { REPORT_COLUMN_TYPES, type ReportColumn, type ReportColumnType } from './records.ts';

/**
 * Column rules: which types run here, configuration checks per type, what a column reads and where it
 * goes. Pure functions over the report's ordered columns; the store (store.ts) writes what they decide.
 *
 * - A type runs here when the workflow engine has an executor for it (`executorOf`); any other type
 *   (MCP, HUMAN, WORKFLOW, ...) is a 400 "column type X is not supported".
 * - The configuration must pass the executor's own schema (a 400 with its first problem).
 * - Names are unique across the dataset's columns and the evaluation columns.
 * - The names a configuration reads explicitly (`source`, `sources[]`, `value_source`, `prompt_source`,
 *   the values of `prompt_template_variable_mappings`) must be dataset columns or earlier columns.
 * - At most MAX_REPORT_COLUMNS evaluation columns.
 * - A column's configuration is at most MAX_COLUMN_CONFIGURATION_BYTES as JSON (a column is one item
 *   of at most 400 KB) and all of them together at most MAX_REPORT_CONFIGURATION_BYTES (GET
 *   /reports/{id} answers every configuration, within Lambda's 6 MB): a 413 beyond.
 */
export const MAX_REPORT_COLUMNS = 50;
export const MAX_COLUMN_CONFIGURATION_BYTES = 350_000;
export const MAX_REPORT_CONFIGURATION_BYTES = 2_000_000;
export const DUPLICATE_COLUMN_NAME = 'Report already has a column with that name';
export const DATASET_COLUMNS_FIXED = 'You can not overwrite dataset columns';

/** Names in messages are shortened to this many characters. */
const NAME_CLIP = 64;
const quoted = (name: string) => `"${clip(name, NAME_CLIP)}"`;

/** What the rules look at: a column, stored or about to be. */
export type ColumnShape = Pick<ReportColumn, 'name' | 'columnType' | 'configuration'>;

/** The type as a ReportColumnType, or a 400 when this service cannot run it. */
export function supportedColumnType(type: string): ReportColumnType {
  if (!(REPORT_COLUMN_TYPES as readonly string[]).includes(type) || !executorOf(type)) {
    throw badRequest(`column type ${clip(type, NAME_CLIP)} is not supported`, 'unsupported_column_type');
  }
  return type as ReportColumnType;
}

/** A 400 when the configuration fails its executor's schema (the type must be supported). */
export async function checkConfiguration(column: ColumnShape): Promise<void> {
  const executor = executorOf(column.columnType);
  if (!executor)
    throw badRequest(`column type ${column.columnType} is not supported`, 'unsupported_column_type');
  const parsed = await executor.config.safeParseAsync(column.configuration);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw badRequest(
    `invalid configuration for column ${quoted(column.name)} (${column.columnType}): ${where}${issue?.message ?? 'invalid'}`,
    'invalid_configuration',
  );
}

const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((v) => typeof v === 'string')
      : [];

/** The configuration fields whose strings (one or a list) name columns (GET /reports/column-types answers them). */
export const COLUMN_REFERENCE_FIELDS = ['source', 'sources', 'value_source', 'prompt_source'] as const;

/**
 * The names a configuration reads explicitly: each must be a dataset column or an earlier column.
 * (A PROMPT_TEMPLATE without mappings reads its template's variables by their own names; those are
 * not checked here, as the template is only resolved when the column runs.)
 */
export function columnReferences(configuration: Record<string, unknown>): string[] {
  const names = COLUMN_REFERENCE_FIELDS.flatMap((field) => stringsOf(configuration[field]));
  const mappings = configuration.prompt_template_variable_mappings;
  if (mappings !== null && typeof mappings === 'object' && !Array.isArray(mappings)) {
    names.push(...Object.values(mappings).flatMap(stringsOf));
  }
  return [...new Set(names)];
}

/** Every string anywhere in a JSON value (keys excluded). */
function collectStrings(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectStrings(item, into, depth + 1);
  }
}

/**
 * The names of the earlier evaluation columns `column` reads (a dependency that FAILED makes the cell
 * FAILED without running it). `columns` are the report's columns ordered by position. A column reads
 * an earlier one when a string value of its configuration equals that column's name (`source`,
 * `sources[]`, `value_source`, the values of `prompt_template_variable_mappings`, ...) or, for
 * CODE_EXECUTION, when the code's text mentions the name.
 */
export function columnDependencies(column: ReportColumn, columns: readonly ReportColumn[]): string[] {
  const strings = new Set<string>();
  collectStrings(column.configuration, strings);
  const code =
    column.columnType === 'CODE_EXECUTION' && typeof column.configuration.code === 'string'
      ? column.configuration.code
      : undefined;
  return columns
    .filter((other) => other.position < column.position && other.id !== column.id)
    .filter((other) => strings.has(other.name) || code?.includes(other.name) === true)
    .map((other) => other.name);
}

/**
 * Checks a report's whole ordered list of evaluation columns against its dataset's columns: count,
 * unique names, sizes, supported types, configurations, and that each reference is a dataset column or
 * an earlier column. The first problem is a 400 (a 413 for a size).
 */
export async function validateColumns(
  datasetColumns: readonly string[],
  columns: readonly ColumnShape[],
): Promise<void> {
  if (columns.length > MAX_REPORT_COLUMNS) {
    throw badRequest(
      `A report has at most ${MAX_REPORT_COLUMNS} evaluation columns; this one would have ${columns.length}`,
      'too_many_columns',
    );
  }
  const known = new Set(datasetColumns);
  let totalBytes = 0;
  for (const column of columns) {
    if (known.has(column.name)) throw badRequest(DUPLICATE_COLUMN_NAME, 'duplicate_column_name');
    const bytes = storedJsonBytes(column.configuration);
    if (bytes > MAX_COLUMN_CONFIGURATION_BYTES) {
      throw payloadTooLarge(
        `The configuration of column ${quoted(column.name)} is ${bytes} bytes as JSON; a column's configuration is at most ${MAX_COLUMN_CONFIGURATION_BYTES}`,
      );
    }
    totalBytes += bytes;
    if (totalBytes > MAX_REPORT_CONFIGURATION_BYTES) {
      throw payloadTooLarge(
        `The configurations of a report's columns are at most ${MAX_REPORT_CONFIGURATION_BYTES} bytes as JSON together; with column ${quoted(column.name)} they would be ${totalBytes}`,
      );
    }
    supportedColumnType(column.columnType);
    await checkConfiguration(column);
    for (const reference of columnReferences(column.configuration)) {
      if (known.has(reference)) continue;
      const later = columns.some((other) => other.name === reference);
      throw badRequest(
        `column ${quoted(column.name)} reads ${quoted(reference)}, which is neither a dataset column nor an earlier column${later ? ' (it comes after this column)' : ''}`,
        'unknown_column_reference',
      );
    }
    known.add(column.name);
  }
}

/**
 * The list with `column` placed at `position` (1-based among evaluation columns; absent or past the
 * end: last), later ones shifted. Position 0 would be a dataset column's place: a 403.
 */
export function placeColumn<T>(columns: readonly T[], column: T, position: number | null | undefined): T[] {
  if (position === 0) throw forbidden(DATASET_COLUMNS_FIXED);
  const at = position == null ? columns.length : Math.min(position - 1, columns.length);
  return [...columns.slice(0, at), column, ...columns.slice(at)];
}

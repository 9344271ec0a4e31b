import { isJsonObject as isObject } from '#shared/platform/json.ts';
import { RecordView } from '#shared/request-logs/filters/record-view.ts';
import { type RequestLogRecord, usageOf } from '#shared/request-logs/record.ts';

/**
 * Dataset rows from request logs (from-filter-params): one row per log with its parsed variables, then
 * the log's input, output, metadata and tags. Variables are every `prompt_input_variables` key met,
 * plus each `variables_to_parse` name, resolved as a variable, else as a request field (see
 * requestField), else as a dot path into either (`metadata.user`, `customer.address.city`).
 *
 * Rows are written before all variable names are known, so a row keeps variables under `v:<name>` and
 * the log's fields under `f:<field>`; the manifest's layout maps column names to those keys at the end.
 * A variable named like a log field (a template variable `input` is common) keeps its name, and the
 * field's column becomes `request_input`.
 */
const LOG_FIELDS = ['input', 'output', 'metadata', 'tags'] as const;

export class LogRowBuilder {
  private readonly toParse: readonly string[];
  private readonly variables: Set<string>;

  constructor(toParse: readonly string[] = []) {
    this.toParse = toParse;
    this.variables = new Set(toParse);
  }

  row(record: RequestLogRecord): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record.prompt_input_variables ?? {})) {
      this.variables.add(name);
      row[`v:${name}`] = value;
    }
    for (const name of this.toParse) {
      if (!(`v:${name}` in row)) row[`v:${name}`] = resolveField(record, name) ?? null;
    }
    for (const field of LOG_FIELDS) row[`f:${field}`] = record[field];
    return row;
  }

  /** Column names and the row key of each, for the rows built so far. */
  layout(): { columns: string[]; keys: string[] } {
    const names = [...this.variables];
    const taken = new Set(names);
    const fieldColumns = LOG_FIELDS.map((field) => {
      let name: string = field;
      while (taken.has(name)) name = `request_${name}`;
      taken.add(name);
      return name;
    });
    return {
      columns: [...names, ...fieldColumns],
      keys: [...names.map((name) => `v:${name}`), ...LOG_FIELDS.map((field) => `f:${field}`)],
    };
  }
}

/** A log's value by name: a variable (the whole name first), a request field, or a dot path into one. */
export function resolveField(record: RequestLogRecord, name: string): unknown {
  const variables = record.prompt_input_variables ?? {};
  if (Object.hasOwn(variables, name)) return variables[name];
  const [head = '', ...path] = name.split('.');
  let value = Object.hasOwn(variables, head) ? variables[head] : requestField(record, head);
  for (const step of path) {
    if (isObject(value) && Object.hasOwn(value, step)) value = value[step];
    else if (Array.isArray(value) && /^\d+$/.test(step)) value = value[Number(step)];
    else return undefined;
  }
  return value;
}

/**
 * Request fields by their API names, plus the derived ones the filters know (texts, latency, cost), the
 * usage (`usage.cache_read_tokens`) and the cost's parts (`cost_breakdown.cached_input`, docs/cost.md).
 */
function requestField(record: RequestLogRecord, name: string): unknown {
  switch (name) {
    case 'id':
    case 'request_id':
    case 'request_log_id':
    case 'pl_id':
      return record.id;
    case 'input_text':
      return new RecordView(record).inputText;
    case 'output_text':
      return new RecordView(record).outputText;
    case 'latency_ms':
      return record.request_end_time - record.request_start_time;
    case 'cost':
      return record.price;
    case 'usage':
      return usageOf(record);
    case 'cost_breakdown':
      return record.cost ?? null;
    case 'engine':
      return record.model;
    case 'request_start_time':
    case 'request_end_time':
    case 'created_at':
      return new Date(record[name]).toISOString();
    case 'workspace_id':
      return undefined;
    default:
      return Object.hasOwn(record, name) ? (record as unknown as Record<string, unknown>)[name] : undefined;
  }
}

/**
 * A column's configuration form, generated from its type's JSON Schema as GET /reports/column-types
 * answers it: one control per top-level property. Strings, numbers, booleans, enums (a select),
 * arrays of strings (one a line), and the fields the API names as column references (a select of the
 * dataset's and earlier columns; a tuple of them as that many selects). Anything else is that field's
 * JSON. What the schema cannot say (rules across fields) is left to the API's 400, shown by the form.
 */
export interface ColumnTypeInfo {
  column_type: string;
  description: string;
  configuration_schema: JsonSchema;
  column_reference_fields: string[];
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema | boolean;
  prefixItems?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  maxLength?: number;
}

type FieldKind =
  | { kind: 'text'; multiline: boolean }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  | { kind: 'column' }
  | { kind: 'columns'; count: number | null }
  | { kind: 'strings' }
  | { kind: 'json' };

export type FieldValue = string | string[];

interface Field {
  name: string;
  required: boolean;
  control: FieldKind;
}

/** The schema without its `null` alternative (an optional field is `anyOf [X, null]` or `type [X, null]`). */
function withoutNull(schema: JsonSchema): JsonSchema {
  if (schema.anyOf) {
    const rest = schema.anyOf.filter((option) => option.type !== 'null');
    return rest.length === 1 && rest[0] ? withoutNull(rest[0]) : { anyOf: rest };
  }
  if (Array.isArray(schema.type)) {
    const rest = schema.type.filter((type) => type !== 'null');
    return { ...schema, type: rest.length === 1 ? rest[0] : rest };
  }
  return schema;
}

const isString = (schema: JsonSchema | boolean | undefined) =>
  typeof schema === 'object' && withoutNull(schema).type === 'string' && !withoutNull(schema).enum;

function kindOf(schema: JsonSchema, reference: boolean): FieldKind {
  const base = withoutNull(schema);
  if (base.type === 'string' && Array.isArray(base.enum))
    return { kind: 'enum', options: base.enum.map(String) };
  if (base.type === 'string')
    return reference ? { kind: 'column' } : { kind: 'text', multiline: (base.maxLength ?? 0) > 2048 };
  if (base.type === 'number' || base.type === 'integer') return { kind: 'number' };
  if (base.type === 'boolean') return { kind: 'boolean' };
  if (base.type === 'array' && base.prefixItems?.every(isString) && base.items === false) {
    return reference ? { kind: 'columns', count: base.prefixItems.length } : { kind: 'json' };
  }
  if (base.type === 'array' && isString(base.items)) {
    return reference ? { kind: 'columns', count: null } : { kind: 'strings' };
  }
  return { kind: 'json' };
}

export function fieldsOf(type: ColumnTypeInfo): Field[] {
  const schema = type.configuration_schema;
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    required: required.has(name),
    control: kindOf(property, type.column_reference_fields.includes(name)),
  }));
}

/** A configuration's values as the form's controls hold them. */
export function formValues(
  type: ColumnTypeInfo,
  configuration: Record<string, unknown>,
): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const field of fieldsOf(type)) {
    const value = configuration[field.name];
    if (value === undefined || value === null) continue;
    const { kind } = field.control;
    if (kind === 'columns') values[field.name] = Array.isArray(value) ? value.map(String) : [String(value)];
    else if (kind === 'strings')
      values[field.name] = Array.isArray(value) ? value.map(String).join('\n') : String(value);
    else if (kind === 'json') values[field.name] = JSON.stringify(value, null, 2);
    else values[field.name] = String(value);
  }
  return values;
}

/** The configuration the form's values make (empty fields left out), or an Error naming a field that is not JSON. */
export function configurationOf(
  type: ColumnTypeInfo,
  values: Record<string, FieldValue>,
): Record<string, unknown> {
  const configuration: Record<string, unknown> = {};
  for (const field of fieldsOf(type)) {
    const value = values[field.name];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.some((item) => item !== '')) configuration[field.name] = value;
      continue;
    }
    if (value.trim() === '') continue;
    const { control } = field;
    if (control.kind === 'number') configuration[field.name] = Number(value);
    else if (control.kind === 'boolean') configuration[field.name] = value === 'true';
    else if (control.kind === 'strings')
      configuration[field.name] = value.split('\n').filter((line) => line !== '');
    else if (control.kind === 'json') {
      try {
        configuration[field.name] = JSON.parse(value);
      } catch (error) {
        throw new Error(`${field.name} is not JSON (${error instanceof Error ? error.message : 'invalid'})`);
      }
    } else configuration[field.name] = value;
  }
  return configuration;
}

/** The options of a select: the choices, and the current value when it is none of them (shown as it is). */
function Options({ choices, value, blank }: { choices: readonly string[]; value: string; blank: boolean }) {
  const all = value && !choices.includes(value) ? [...choices, value] : choices;
  return (
    <>
      {blank ? <option value="">–</option> : null}
      {all.map((choice) => (
        <option key={choice} value={choice}>
          {choice}
        </option>
      ))}
    </>
  );
}

export function ConfigurationForm({
  id,
  legend,
  type,
  values,
  columns,
  onChange,
}: {
  id: string;
  legend: string;
  type: ColumnTypeInfo;
  values: Record<string, FieldValue>;
  /** The names a reference may take: the dataset's columns, then the earlier evaluation columns. */
  columns: readonly string[];
  onChange: (values: Record<string, FieldValue>) => void;
}) {
  const set = (name: string, value: FieldValue) => onChange({ ...values, [name]: value });
  return (
    <fieldset class="evaluations-configuration">
      <legend>{legend}</legend>
      {fieldsOf(type).map(({ name, required, control }) => {
        const fieldId = `${id}-${name}`;
        const label = `${name}${required ? '' : ' (optional)'}`;
        const value = values[name] ?? (control.kind === 'columns' ? [] : '');
        const text = typeof value === 'string' ? value : value.join('\n');
        if (control.kind === 'columns') {
          const list = Array.isArray(value) ? value : [value];
          if (control.count === null) {
            return (
              <div key={name} class="evaluations-field">
                <label for={fieldId}>{label}</label>
                <select
                  id={fieldId}
                  multiple
                  onChange={(event) =>
                    set(
                      name,
                      [...event.currentTarget.selectedOptions].map((option) => option.value),
                    )
                  }
                >
                  {columns.map((choice) => (
                    <option key={choice} value={choice} selected={list.includes(choice)}>
                      {choice}
                    </option>
                  ))}
                </select>
              </div>
            );
          }
          return (
            <div key={name} class="evaluations-field">
              {Array.from({ length: control.count }, (_, i) => (
                <span key={String(i)} class="evaluations-tuple">
                  <label for={`${fieldId}-${i}`}>{`${name} ${i + 1}`}</label>
                  <select
                    id={`${fieldId}-${i}`}
                    value={list[i] ?? ''}
                    onChange={(event) => {
                      const next = Array.from({ length: control.count ?? 0 }, (_, j) => list[j] ?? '');
                      next[i] = event.currentTarget.value;
                      set(name, next);
                    }}
                  >
                    <Options choices={columns} value={list[i] ?? ''} blank={!list[i]} />
                  </select>
                </span>
              ))}
            </div>
          );
        }
        return (
          <div key={name} class="evaluations-field">
            <label for={fieldId}>
              {label}
              {control.kind === 'json' ? ' (JSON)' : control.kind === 'strings' ? ' (one a line)' : ''}
            </label>
            {control.kind === 'enum' || control.kind === 'boolean' || control.kind === 'column' ? (
              <select id={fieldId} value={text} onChange={(event) => set(name, event.currentTarget.value)}>
                <Options
                  choices={
                    control.kind === 'enum'
                      ? control.options
                      : control.kind === 'boolean'
                        ? ['true', 'false']
                        : columns
                  }
                  value={text}
                  blank={!required || !text}
                />
              </select>
            ) : control.kind === 'number' ? (
              <input
                id={fieldId}
                type="number"
                step="any"
                value={text}
                onInput={(event) => set(name, event.currentTarget.value)}
              />
            ) : control.kind === 'text' && !control.multiline ? (
              <input id={fieldId} value={text} onInput={(event) => set(name, event.currentTarget.value)} />
            ) : (
              <textarea
                id={fieldId}
                rows={control.kind === 'json' ? 3 : 5}
                spellcheck={false}
                value={text}
                onInput={(event) => set(name, event.currentTarget.value)}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

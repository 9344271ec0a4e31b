import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';
import type { OtlpSpan } from '../spans.ts';

/**
 * What a convention module is: a table from attribute names (or name prefixes) to the fields of a
 * request log, applied by `Mapper`, which remembers which attribute became which field (for
 * GET /traces/{id}/mapping) and which attributes were used at all (the rest stay raw span attributes).
 */

/** The request-log fields a span can fill. Dotted names are nested: `usage.input_tokens`, `metadata.<k>`. */
export type Field = string;

export interface Rule {
  /** An attribute name, or a prefix ending in `.` whose attributes are read together by `read`. */
  attribute: string;
  field: Field;
  /**
   * The field's value from the attribute's value (or, for a prefix, from the object of the attributes
   * under it, keyed by the rest of their names); undefined when the attribute does not hold one.
   */
  read?: (value: unknown, span: OtlpSpan) => unknown;
}

export interface Convention {
  /** Its name in the mapping explanation. */
  name: string;
  /** Whether the span is written in this convention (it claims it over the later ones). */
  claims(span: OtlpSpan): boolean;
  /** Whether a claimed span is a model call (a request log); a string says why not. */
  modelCall(span: OtlpSpan): true | string;
  rules: readonly Rule[];
  /** Fields read from span events rather than attributes (the older GenAI message events). */
  fromEvents?(span: OtlpSpan, mapper: Mapper): void;
}

export interface FieldSource {
  field: Field;
  from: string[];
  convention: string;
}

export class Mapper {
  readonly span: OtlpSpan;
  readonly values = new Map<Field, unknown>();
  readonly sources: FieldSource[] = [];
  readonly used = new Set<string>();

  constructor(span: OtlpSpan) {
    this.span = span;
  }

  /** The first value set for a field wins: conventions and rules run in precedence order. */
  set(field: Field, value: unknown, from: string[], convention: string): void {
    if (value === undefined || this.values.has(field)) return;
    this.values.set(field, value);
    this.sources.push({ field, from, convention });
    for (const name of from) this.used.add(name);
  }

  get<T = unknown>(field: Field): T | undefined {
    return this.values.get(field) as T | undefined;
  }

  apply(convention: Convention): void {
    const { attributes } = this.span;
    for (const rule of convention.rules) {
      if (rule.attribute.endsWith('.')) {
        const names = Object.keys(attributes).filter((name) => name.startsWith(rule.attribute));
        if (names.length === 0) continue;
        const group = Object.fromEntries(
          names.map((name) => [name.slice(rule.attribute.length), attributes[name]]),
        );
        const value = rule.read ? rule.read(group, this.span) : group;
        this.set(rule.field, value, names, convention.name);
        continue;
      }
      if (!Object.hasOwn(attributes, rule.attribute)) continue;
      const raw = attributes[rule.attribute];
      this.set(rule.field, rule.read ? rule.read(raw, this.span) : raw, [rule.attribute], convention.name);
    }
    convention.fromEvents?.(this.span, this);
  }

  /** Sets `metadata.<key>` for every attribute under `prefix` (strings, else their JSON). */
  metadataFrom(prefix: string, convention: string): void {
    for (const [name, value] of Object.entries(this.span.attributes)) {
      if (name.startsWith(prefix) && name.length > prefix.length)
        this.set(`metadata.${name.slice(prefix.length)}`, asText(value), [name], convention);
    }
  }
}

/** Readers the tables share. */
export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

export const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** A token count: a non-negative integer (OTLP int, or a string of digits as some SDKs send). */
export function asCount(value: unknown): number | undefined {
  const count = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

export function asNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** A cost in USD: a finite non-negative number. */
export const asCost = (value: unknown): number | undefined => {
  const cost = asNumber(value);
  return cost !== undefined && cost >= 0 ? cost : undefined;
};

/** JSON held in a string attribute (many conventions serialise structures), else the value itself. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!(text.startsWith('{') || text.startsWith('['))) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

export const asObject = (value: unknown): JsonObject | undefined => {
  const parsed = parseJson(value);
  return isJsonObject(parsed) ? parsed : undefined;
};

/** Nested objects from flattened names: {"0.message.role": "user"} -> {0: {message: {role: "user"}}}. */
export function unflatten(group: JsonObject): JsonObject {
  const root: JsonObject = {};
  for (const [name, value] of Object.entries(group)) {
    const parts = name.split('.');
    // `llm.input_messages.__proto__.x` would otherwise write into Object.prototype, for the whole process.
    if (parts.includes('__proto__')) continue;
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (!isJsonObject(node[part])) node[part] = {};
      node = node[part] as JsonObject;
    }
    node[parts.at(-1)!] = value;
  }
  return root;
}

/** The values of an object keyed by 0, 1, 2... in index order (what unflatten makes of `.N.` names). */
export const indexed = (value: unknown): unknown[] =>
  isJsonObject(value)
    ? Object.keys(value)
        .filter((key) => /^\d+$/.test(key))
        .sort((a, b) => Number(a) - Number(b))
        .map((key) => value[key])
    : [];

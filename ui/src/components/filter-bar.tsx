import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import {
  describeFilter,
  FIELDS,
  type Filter,
  type FilterScalar,
  LIST_OPERATORS,
  type LogQuery,
  OPERATORS,
  readLogQuery,
  VALUELESS,
  writeLogQuery,
} from '../lib/log-query.ts';
import { setQuery, useQuery } from '../lib/url-state.ts';

/**
 * The request-log query's conditions (the URL's `f`, log-query.ts), shown above Requests and Analytics so a
 * filter set on one screen holds on the other: each condition a removable chip, and a builder that adds
 * one over any field and operator of the API's `filter_group`, with values suggested by
 * `GET /api/public/v2/requests/suggestions`.
 */
export function FilterBar() {
  const query = readLogQuery(useQuery());
  const [adding, setAdding] = useState(false);
  return (
    <div class="filter-bar">
      {query.filters.length > 0 && (
        <ul class="filter-chips" aria-label="Filters">
          {query.filters.map((filter, index) => (
            <li key={`${index}:${describeFilter(filter)}`}>
              <span>{describeFilter(filter)}</span>
              <button
                type="button"
                aria-label={`Remove filter ${describeFilter(filter)}`}
                onClick={() => applyQuery({ ...query, filters: query.filters.filter((_, i) => i !== index) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <FilterBuilder
          onAdd={(filter) => {
            applyQuery({ ...query, filters: [...query.filters, filter] });
            setAdding(false);
          }}
          onCancel={() => setAdding(false)}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          Add filter
        </button>
      )}
    </div>
  );
}

/** A changed query is a new search: paging parameters (a cursor belongs to one search) are dropped. */
function applyQuery(query: LogQuery): void {
  setQuery({ ...writeLogQuery(query), cursor: null, page: null, asof: null });
}

const NESTED_SUGGESTIONS: Record<string, string> = { metadata: 'metadata_keys' };
/** Fields whose values the suggestions endpoint knows (its `field` parameter). */
const VALUE_SUGGESTIONS: Record<string, string> = {
  engine: 'engine',
  provider_type: 'provider_type',
  status: 'status',
  tags: 'tags',
  metadata_keys: 'metadata_keys',
  prompt_id: 'prompt_id',
  metadata: 'metadata_values',
};

const FIELD_NAMES = Object.keys(FIELDS).sort();

function FilterBuilder({ onAdd, onCancel }: { onAdd(filter: Filter): void; onCancel(): void }) {
  const [field, setField] = useState('status');
  const kind = FIELDS[field] ?? 'string';
  const operators = OPERATORS[kind];
  const [operator, setOperator] = useState(operators[0] ?? 'is');
  const [nestedKey, setNestedKey] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const needsValue = !VALUELESS.has(operator);
  const keySuggestions = useSuggestions(NESTED_SUGGESTIONS[field], nestedKey, null);
  const valueSuggestions = useSuggestions(
    needsValue ? VALUE_SUGGESTIONS[field] : undefined,
    LIST_OPERATORS.has(operator) ? (value.split(',').at(-1)?.trim() ?? '') : value,
    field === 'metadata' ? nestedKey : null,
  );

  const submit = (event: Event) => {
    event.preventDefault();
    const filter: Filter = { field, operator };
    if (kind === 'nested') {
      if (!nestedKey.trim()) return setProblem('Name the key (a dot path such as user.plan).');
      filter.nested_key = nestedKey.trim();
    }
    if (needsValue) {
      const parsed = parseValue(kind, operator, value);
      if (typeof parsed === 'object' && parsed !== null && 'problem' in parsed)
        return setProblem(parsed.problem);
      filter.value = parsed;
    }
    onAdd(filter);
  };

  return (
    <form class="filter-builder" aria-label="New filter" onSubmit={submit}>
      <label>
        Field
        <select
          aria-label="Field"
          value={field}
          onChange={(event) => {
            const next = event.currentTarget.value;
            setField(next);
            const nextOperators = OPERATORS[FIELDS[next] ?? 'string'];
            if (!nextOperators.includes(operator)) setOperator(nextOperators[0] ?? 'is');
            setProblem(null);
          }}
        >
          {FIELD_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {kind === 'nested' && (
        <label>
          Key
          <input
            value={nestedKey}
            list="filter-key-suggestions"
            placeholder="user.plan"
            onInput={(event) => setNestedKey(event.currentTarget.value)}
          />
          <datalist id="filter-key-suggestions">
            {keySuggestions.map((suggestion) => (
              <option key={suggestion} value={suggestion} />
            ))}
          </datalist>
        </label>
      )}
      <label>
        Operator
        <select
          aria-label="Operator"
          value={operator}
          onChange={(event) => setOperator(event.currentTarget.value)}
        >
          {operators.map((name) => (
            <option key={name} value={name}>
              {name.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      {needsValue && (
        <label>
          Value
          <input
            value={value}
            list="filter-value-suggestions"
            placeholder={placeholder(kind, operator)}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
          <datalist id="filter-value-suggestions">
            {valueSuggestions.map((suggestion) => (
              <option key={suggestion} value={suggestion} />
            ))}
          </datalist>
        </label>
      )}
      <button type="submit" class="primary">
        Apply filter
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

function placeholder(kind: string, operator: string): string {
  if (operator === 'between') return kind === 'time' ? '2026-11-01, 2026-11-30' : 'low, high';
  if (LIST_OPERATORS.has(operator)) return 'a, b, c';
  if (kind === 'time') return '2026-11-28T10:00';
  return '';
}

/** The typed text as the API's value: numbers for number fields, lists split on commas. */
function parseValue(
  kind: string,
  operator: string,
  text: string,
): FilterScalar | FilterScalar[] | { problem: string } {
  const one = (item: string): FilterScalar | { problem: string } => {
    const trimmed = item.trim();
    if (trimmed === '') return { problem: 'Enter a value.' };
    if (kind !== 'number') return trimmed;
    const number = Number(trimmed);
    return Number.isFinite(number) ? number : { problem: `"${trimmed}" is not a number.` };
  };
  if (!LIST_OPERATORS.has(operator)) return one(text);
  const items = text.split(',').map(one);
  const bad = items.find((item) => typeof item === 'object' && item !== null);
  if (bad) return bad;
  if (operator === 'between' && items.length !== 2)
    return { problem: 'Between takes two values: low, high.' };
  return items as FilterScalar[];
}

/** Values seen for a field (`GET /requests/suggestions`), for the text typed so far; none while the field has none. */
function useSuggestions(field: string | undefined, prefix: string, metadataKey: string | null): string[] {
  const [values, setValues] = useState<string[]>([]);
  useEffect(() => {
    if (!field || (field === 'metadata_values' && !metadataKey)) {
      setValues([]);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api<{ values: string[] }>('GET', '/api/public/v2/requests/suggestions', {
        query: { field, prefix: prefix.trim(), metadata_key: metadataKey },
        signal: controller.signal,
      }).then(
        (answer) => controller.signal.aborted || setValues(answer.values.slice(0, 50)),
        () => controller.signal.aborted || setValues([]),
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [field, prefix, metadataKey]);
  return values;
}

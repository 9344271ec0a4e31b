import { describeFilter, readLogQuery, writeLogQuery } from '../lib/log-query.ts';
import { setQuery, useQuery } from '../lib/url-state.ts';

/**
 * The request-log query of the URL as chips, each removable: shown above Requests and Analytics, so a
 * filter set on one screen holds on the other. (The full builder replaces this: same props.)
 */
export function FilterBar() {
  const query = readLogQuery(useQuery());
  if (query.filters.length === 0) return null;
  return (
    <ul class="filter-chips" aria-label="Filters">
      {query.filters.map((filter, index) => (
        <li key={`${index}:${describeFilter(filter)}`}>
          <span>{describeFilter(filter)}</span>
          <button
            type="button"
            aria-label={`Remove filter ${describeFilter(filter)}`}
            onClick={() =>
              setQuery(writeLogQuery({ ...query, filters: query.filters.filter((_, i) => i !== index) }))
            }
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

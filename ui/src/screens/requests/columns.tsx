import type { ComponentChildren } from 'preact';
import type { Filter } from '../../lib/log-query.ts';
import { persisted } from '../../lib/store.ts';
import { formatCost, formatCount } from './format.ts';
import type { LogRow } from './types.ts';

/** What a cell needs besides its row: the time formatter and click-to-filter. */
export interface CellContext {
  formatTime(value: string): string;
  onFilter(filter: Filter): void;
}

export interface Column {
  id: string;
  label: string;
  /** The search's `sort_by` when this column sorts. */
  sortBy?: string;
  numeric?: boolean;
  cell(row: LogRow, context: CellContext): ComponentChildren;
}

/** A cell value that adds its condition to the query when clicked. */
/** A log's tags, each a click-to-filter button (the table's cell and the detail pane). */
export function TagFilters({ tags, onFilter }: { tags: readonly string[]; onFilter(filter: Filter): void }) {
  return (
    <>
      {tags.map((tag) => (
        <FilterValue
          key={tag}
          filter={{ field: 'tags', operator: 'contains', value: tag }}
          label={`tag ${tag}`}
          onFilter={onFilter}
        >
          {tag}
        </FilterValue>
      ))}
    </>
  );
}

export function FilterValue({
  filter,
  label,
  onFilter,
  children,
}: {
  filter: Filter;
  label: string;
  onFilter(filter: Filter): void;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class="requests-filter-value"
      title={`Filter: ${label}`}
      aria-label={`Filter by ${label}`}
      onClick={(event) => {
        event.stopPropagation();
        onFilter(filter);
      }}
    >
      {children}
    </button>
  );
}

export const COLUMNS: Column[] = [
  {
    id: 'time',
    label: 'Time',
    sortBy: 'request_start_time',
    cell: (row, { formatTime }) => formatTime(row.request_start_time),
  },
  {
    id: 'prompt',
    label: 'Prompt',
    cell: (row, { onFilter }) =>
      row.prompt_id === null ? (
        <span class="muted">none</span>
      ) : (
        <>
          <FilterValue
            filter={{ field: 'prompt_id', operator: 'eq', value: row.prompt_id }}
            label={`prompt ${row.prompt_name ?? row.prompt_id}`}
            onFilter={onFilter}
          >
            {row.prompt_name ?? `#${row.prompt_id}`}
          </FilterValue>
          {row.prompt_version_number !== null && (
            <FilterValue
              filter={{ field: 'prompt_version_number', operator: 'eq', value: row.prompt_version_number }}
              label={`version ${row.prompt_version_number}`}
              onFilter={onFilter}
            >
              v{row.prompt_version_number}
            </FilterValue>
          )}
        </>
      ),
  },
  {
    id: 'model',
    label: 'Model',
    cell: (row, { onFilter }) => (
      <FilterValue
        filter={{ field: 'engine', operator: 'is', value: row.engine }}
        label={`model ${row.engine}`}
        onFilter={onFilter}
      >
        {row.engine}
      </FilterValue>
    ),
  },
  {
    id: 'status',
    label: 'Status',
    sortBy: 'status',
    cell: (row, { onFilter }) => (
      <FilterValue
        filter={{ field: 'status', operator: 'is', value: row.status }}
        label={`status ${row.status}`}
        onFilter={onFilter}
      >
        <span class={`requests-status requests-status-${row.status.toLowerCase()}`}>{row.status}</span>
      </FilterValue>
    ),
  },
  {
    id: 'latency',
    label: 'Latency',
    sortBy: 'latency_ms',
    numeric: true,
    cell: (row, { onFilter }) => {
      const ms = Math.round(row.latency * 1000);
      const shown = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
      return (
        <FilterValue
          filter={{ field: 'latency_ms', operator: 'gte', value: ms }}
          label={`latency at least ${shown}`}
          onFilter={onFilter}
        >
          {shown}
        </FilterValue>
      );
    },
  },
  {
    id: 'tokens',
    label: 'Tokens (in / out)',
    sortBy: 'output_tokens',
    numeric: true,
    cell: (row) => `${formatCount(row.input_tokens)} / ${formatCount(row.output_tokens)}`,
  },
  {
    id: 'cost',
    label: 'Cost',
    sortBy: 'cost',
    numeric: true,
    cell: (row, { onFilter }) => (
      <FilterValue
        filter={{ field: 'cost', operator: 'gte', value: row.price }}
        label={`cost at least ${formatCost(row.price)}`}
        onFilter={onFilter}
      >
        {formatCost(row.price)}
      </FilterValue>
    ),
  },
  {
    id: 'tags',
    label: 'Tags',
    cell: (row, { onFilter }) => (
      <span class="requests-tags">
        <TagFilters tags={row.tags_array} onFilter={onFilter} />
      </span>
    ),
  },
  {
    id: 'score',
    label: 'Score',
    numeric: true,
    cell: (row) => (row.score === undefined || row.score === null ? '' : String(row.score)),
  },
];

const SETTING = 'promptops.requests.hiddenColumns';

/** The ids of the columns hidden with the column chooser (kept on this device). */
export function readHiddenColumns(): Set<string> {
  try {
    const parsed: unknown = JSON.parse(persisted.read(SETTING) ?? '[]');
    return new Set(Array.isArray(parsed) ? parsed.filter((id) => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

export function writeHiddenColumns(hidden: Set<string>): void {
  persisted.write(SETTING, hidden.size === 0 ? null : JSON.stringify([...hidden]));
}

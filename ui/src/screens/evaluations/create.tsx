import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage } from '../../components/status.tsx';
import { setQuery } from '../../lib/url-state.ts';
import { STARTING_CONFIGURATIONS } from './column-types.ts';
import {
  type ColumnTypeInfo,
  ConfigurationForm,
  configurationOf,
  type FieldValue,
  formValues,
} from './schema-form.tsx';

export interface DatasetVersion {
  id: number;
  /** -1 for a draft. */
  version_number: number;
  row_count: number;
  dataset_group: { id: number; name: string };
}

interface ColumnDraft {
  key: number;
  column_type: string;
  name: string;
  is_part_of_score: boolean;
  /** The configuration as its generated form holds it. */
  values: Record<string, FieldValue>;
}

/**
 * A new report over a published dataset version, with evaluation columns chosen from the node types:
 * each column's configuration is a form generated from its type's schema (GET /reports/column-types),
 * started from a typical configuration, and checked by the API (its 4xx message is shown by the form).
 */
export function CreateReport({ datasets, onCreated }: { datasets: DatasetVersion[]; onCreated: () => void }) {
  const published = datasets.filter((dataset) => dataset.version_number >= 1);
  const [datasetId, setDatasetId] = useState(String(published[0]?.id ?? ''));
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<ColumnDraft[]>([]);
  const [nextKey, setNextKey] = useState(1);
  const [newType, setNewType] = useState('COMPARE');
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const dataset = published.find((candidate) => String(candidate.id) === datasetId) ?? published[0];
  const datasetColumns = useApi(
    (signal) =>
      dataset
        ? api<{ columns: string[] }>('GET', `/api/public/v2/datasets/${dataset.id}/rows`, {
            query: { page: 1, per_page: 1 },
            signal,
          }).then((answer) => answer.columns)
        : Promise.resolve([]),
    [dataset?.id],
  );
  const columnTypes = useApi(
    (signal) =>
      api<{ column_types: ColumnTypeInfo[] }>('GET', '/reports/column-types', { signal }).then(
        (answer) => answer.column_types,
      ),
    [],
  );
  const typeInfo = (name: string) => columnTypes.data?.find((type) => type.column_type === name);
  const known = [...(datasetColumns.data ?? []), ...columns.map((column) => column.name)];

  const update = (key: number, changes: Partial<ColumnDraft>) =>
    setColumns((previous) =>
      previous.map((column) => (column.key === key ? { ...column, ...changes } : column)),
    );
  const add = () => {
    const info = typeInfo(newType);
    if (!info) return;
    const [a = 'a', b = a] = known;
    setColumns((previous) => [
      ...previous,
      {
        key: nextKey,
        column_type: newType,
        name: `${newType.toLowerCase()} ${previous.length + 1}`,
        is_part_of_score: false,
        values: formValues(info, STARTING_CONFIGURATIONS[newType]?.(a, b) ?? {}),
      },
    ]);
    setNextKey((n) => n + 1);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (!dataset) return;
    const body: Record<string, unknown>[] = [];
    for (const column of columns) {
      const info = typeInfo(column.column_type);
      if (!info) continue;
      let configuration: Record<string, unknown>;
      try {
        configuration = configurationOf(info, column.values);
      } catch (error) {
        return setFailure(`The configuration of column "${column.name}": ${errorMessage(error)}`);
      }
      body.push({
        column_type: column.column_type,
        name: column.name,
        configuration,
        is_part_of_score: column.is_part_of_score,
      });
    }
    setBusy(true);
    setFailure(null);
    api<{ report_id: number }>('POST', '/reports', {
      body: {
        dataset_group_id: dataset.dataset_group.id,
        dataset_version_number: dataset.version_number,
        ...(name.trim() ? { name: name.trim() } : {}),
        columns: body,
      },
    }).then(
      (answer) => {
        setBusy(false);
        onCreated();
        setQuery({ new: null, report: String(answer.report_id) });
      },
      (error) => {
        setBusy(false);
        setFailure(errorMessage(error));
      },
    );
  };

  return (
    <section class="evaluations-detail" aria-labelledby="create-title">
      <h2 id="create-title">New report</h2>
      {published.length === 0 ? (
        <p class="notice">No published dataset version yet: make one in Datasets first.</p>
      ) : (
        <form class="evaluations-create" onSubmit={submit}>
          <label for="create-dataset">Dataset version</label>
          <select
            id="create-dataset"
            value={datasetId}
            onChange={(event) => setDatasetId(event.currentTarget.value)}
          >
            {published.map((candidate) => (
              <option key={candidate.id} value={String(candidate.id)}>
                {candidate.dataset_group.name} v{candidate.version_number} ({candidate.row_count} rows)
              </option>
            ))}
          </select>
          <p class="muted evaluations-hint">
            Dataset columns: {datasetColumns.data?.length ? datasetColumns.data.join(', ') : '–'}
          </p>
          <label for="create-name">Name (optional)</label>
          <input
            id="create-name"
            maxLength={255}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <fieldset class="evaluations-columns">
            <legend>Columns</legend>
            {columns.length === 0 ? <p class="muted">No column yet.</p> : null}
            <ol>
              {columns.map((column, index) => (
                <ColumnEditor
                  key={column.key}
                  column={column}
                  type={typeInfo(column.column_type)}
                  readable={known.slice(0, (datasetColumns.data?.length ?? 0) + index)}
                  onChange={(changes) => update(column.key, changes)}
                  onRemove={() => setColumns((previous) => previous.filter((c) => c.key !== column.key))}
                />
              ))}
            </ol>
            <div class="evaluations-inline-form">
              <label for="create-new-type">Column type</label>
              <select
                id="create-new-type"
                value={newType}
                disabled={!columnTypes.data}
                onChange={(event) => setNewType(event.currentTarget.value)}
              >
                {(columnTypes.data ?? []).map((type) => (
                  <option key={type.column_type} value={type.column_type}>
                    {type.column_type}
                  </option>
                ))}
              </select>
              <button type="button" onClick={add} disabled={!columnTypes.data}>
                Add column
              </button>
            </div>
          </fieldset>
          {columnTypes.error ? <ErrorMessage>{columnTypes.error}</ErrorMessage> : null}
          {failure ? <ErrorMessage>{failure}</ErrorMessage> : null}
          <p class="evaluations-inline-form">
            <button type="submit" class="primary" disabled={busy}>
              Create the report
            </button>
            <button type="button" onClick={() => setQuery({ new: null })}>
              Cancel
            </button>
          </p>
        </form>
      )}
    </section>
  );
}

function ColumnEditor({
  column,
  type,
  readable,
  onChange,
  onRemove,
}: {
  column: ColumnDraft;
  type: ColumnTypeInfo | undefined;
  /** The dataset's columns and the earlier evaluation columns. */
  readable: readonly string[];
  onChange: (changes: Partial<ColumnDraft>) => void;
  onRemove: () => void;
}) {
  const id = `column-${column.key}`;
  return (
    <li class="evaluations-column">
      <p>
        <strong>{column.column_type}</strong> <span class="muted">{type?.description}</span>
      </p>
      <label for={`${id}-name`}>Column name</label>
      <input
        id={`${id}-name`}
        required
        maxLength={255}
        value={column.name}
        onInput={(event) => onChange({ name: event.currentTarget.value })}
      />
      <label class="checkbox">
        <input
          type="checkbox"
          checked={column.is_part_of_score}
          onChange={(event) => onChange({ is_part_of_score: event.currentTarget.checked })}
        />
        Part of the score
      </label>
      {type ? (
        <ConfigurationForm
          id={id}
          legend={`Configuration of ${column.name}`}
          type={type}
          values={column.values}
          columns={readable}
          onChange={(values) => onChange({ values })}
        />
      ) : null}
      <button type="button" aria-label={`Remove column ${column.name}`} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}

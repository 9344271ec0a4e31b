import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage } from '../../components/status.tsx';
import { setQuery } from '../../lib/url-state.ts';
import { COLUMN_TYPE_NAMES, COLUMN_TYPES } from './column-types.ts';

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
  /** The configuration as typed (JSON). */
  configuration: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * A new report over a published dataset version, with evaluation columns chosen from the node types:
 * each column's configuration starts from its type's documented fields and is checked by the API
 * (its 4xx message is shown by the form).
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
  const known = [...(datasetColumns.data ?? []), ...columns.map((column) => column.name)];

  const update = (key: number, changes: Partial<ColumnDraft>) =>
    setColumns((previous) =>
      previous.map((column) => (column.key === key ? { ...column, ...changes } : column)),
    );
  const add = () => {
    const type = COLUMN_TYPES[newType];
    if (!type) return;
    const [a = 'a', b = a] = known;
    setColumns((previous) => [
      ...previous,
      {
        key: nextKey,
        column_type: newType,
        name: `${newType.toLowerCase()} ${previous.length + 1}`,
        is_part_of_score: false,
        configuration: json(type.template(a, b)),
      },
    ]);
    setNextKey((n) => n + 1);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (!dataset) return;
    const body: Record<string, unknown>[] = [];
    for (const column of columns) {
      let configuration: unknown;
      try {
        configuration = JSON.parse(column.configuration);
      } catch (error) {
        return setFailure(`The configuration of column "${column.name}" is not JSON: ${errorMessage(error)}`);
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
              {columns.map((column) => (
                <ColumnEditor
                  key={column.key}
                  column={column}
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
                onChange={(event) => setNewType(event.currentTarget.value)}
              >
                {COLUMN_TYPE_NAMES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
              <button type="button" onClick={add}>
                Add column
              </button>
            </div>
          </fieldset>
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
  onChange,
  onRemove,
}: {
  column: ColumnDraft;
  onChange: (changes: Partial<ColumnDraft>) => void;
  onRemove: () => void;
}) {
  const type = COLUMN_TYPES[column.column_type];
  const id = `column-${column.key}`;
  return (
    <li class="evaluations-column">
      <p>
        <strong>{column.column_type}</strong> <span class="muted">{type?.summary}</span>
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
      <label for={`${id}-configuration`}>Configuration of {column.name} (JSON)</label>
      <textarea
        id={`${id}-configuration`}
        rows={5}
        spellcheck={false}
        value={column.configuration}
        aria-describedby={`${id}-fields`}
        onInput={(event) => onChange({ configuration: event.currentTarget.value })}
      />
      <p id={`${id}-fields`} class="muted evaluations-hint">
        Fields: {type?.fields}
      </p>
      <button type="button" aria-label={`Remove column ${column.name}`} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}

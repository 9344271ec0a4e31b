import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../../api/client.ts';
import type { Filter } from '../../../lib/log-query.ts';
import { FilterValue, TagFilters } from '../columns.tsx';
import type { LogDetail } from '../types.ts';

/**
 * Tags, metadata, input variables and scores of a log, each value a click-to-filter; metadata and
 * scores are edited through `/rest/track-metadata` and `/rest/track-score` (the header-key forms of the
 * SDK's `/library-track-*`: the key travels only in X-API-KEY), shown only to keys that may edit logs.
 */
export function Annotations({
  log,
  canEdit,
  onFilter,
  onChanged,
}: {
  log: LogDetail;
  canEdit: boolean;
  onFilter(filter: Filter): void;
  onChanged(): void;
}) {
  const variables = Object.entries(log.prompt_input_variables ?? {});
  return (
    <>
      <h3>Tags</h3>
      {log.tags.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <p class="requests-tags">
          <TagFilters tags={log.tags} onFilter={onFilter} />
        </p>
      )}
      <h3>Metadata</h3>
      <KeyValues values={log.metadata} field="metadata" onFilter={onFilter} />
      {canEdit && (
        <PairForm
          label="Add metadata"
          keyLabel="Metadata key"
          valueLabel="Metadata value"
          onSave={(key, value) =>
            api('POST', '/rest/track-metadata', { body: { request_id: log.id, metadata: { [key]: value } } })
          }
          onSaved={onChanged}
        />
      )}
      {variables.length > 0 && (
        <>
          <h3>Input variables</h3>
          <KeyValues
            values={Object.fromEntries(
              variables.map(([key, value]) => [
                key,
                typeof value === 'string' ? value : JSON.stringify(value),
              ]),
            )}
            field="input_variables"
            onFilter={onFilter}
          />
        </>
      )}
      <h3>Scores</h3>
      {Object.keys(log.scores ?? {}).length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <dl>
          {Object.entries(log.scores).map(([name, score]) => (
            <Fragment key={name}>
              <dt>{name}</dt>
              <dd>{score}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      {canEdit && (
        <PairForm
          label="Set score"
          keyLabel="Score name"
          valueLabel="Score (0-100)"
          numeric
          onSave={(name, score) =>
            api('POST', '/rest/track-score', { body: { request_id: log.id, name, score: Number(score) } })
          }
          onSaved={onChanged}
        />
      )}
    </>
  );
}

function KeyValues({
  values,
  field,
  onFilter,
}: {
  values: Record<string, string>;
  field: 'metadata' | 'input_variables';
  onFilter(filter: Filter): void;
}) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return <p class="muted">None.</p>;
  return (
    <dl>
      {entries.map(([key, value]) => (
        <Fragment key={key}>
          <dt>{key}</dt>
          <dd>
            <FilterValue
              filter={{ field, operator: 'key_equals', nested_key: key, value }}
              label={`${field} ${key} = ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`}
              onFilter={onFilter}
            >
              {value.length > 2_000 ? `${value.slice(0, 2_000)}…` : value}
            </FilterValue>
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

function PairForm({
  label,
  keyLabel,
  valueLabel,
  numeric = false,
  onSave,
  onSaved,
}: {
  label: string;
  keyLabel: string;
  valueLabel: string;
  numeric?: boolean;
  onSave(key: string, value: string): Promise<unknown>;
  onSaved(): void;
}) {
  const [key, setKey] = useState(numeric ? 'default' : '');
  const [value, setValue] = useState('');
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  return (
    <form
      class="request-actions"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        setState({ busy: true });
        onSave(key.trim(), value.trim()).then(
          () => {
            setState({ busy: false });
            setValue('');
            onSaved();
          },
          (error) => setState({ busy: false, error: errorMessage(error) }),
        );
      }}
    >
      <label>
        {keyLabel}
        <input required value={key} maxLength={255} onInput={(event) => setKey(event.currentTarget.value)} />
      </label>
      <label>
        {valueLabel}
        <input
          required
          value={value}
          inputMode={numeric ? 'numeric' : undefined}
          pattern={numeric ? '(100|[1-9]?[0-9])' : undefined}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={state.busy}>
        {label}
      </button>
      {state.error && (
        <span class="error" role="alert">
          {state.error}
        </span>
      )}
    </form>
  );
}

import { useState } from 'preact/hooks';
import { errorMessage } from '../../api/client.ts';
import type { Loaded } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { setQuery } from '../../lib/url-state.ts';
import { createLabel, deleteLabel, type Label } from './api.ts';
import { positiveInt } from './params.ts';

/**
 * The template's labels and where they point. With edit permission on prompts: create one on a
 * version, delete one (asked twice), and start a move, which opens the review (`move` and `to` in the
 * URL) instead of moving at once.
 */
export function LabelsPanel({
  promptId,
  labels,
  latestVersion,
  shownVersion,
  canEdit,
  onChanged,
}: {
  promptId: number;
  labels: Loaded<Label[]>;
  latestVersion: number;
  shownVersion: number;
  canEdit: boolean;
  onChanged: () => void;
}) {
  const [failure, setFailure] = useState<string | null>(null);
  /** Runs a change; true when it succeeded (a failure shows the API's message). */
  const act = (work: Promise<unknown>): Promise<boolean> =>
    work.then(
      () => {
        setFailure(null);
        onChanged();
        return true;
      },
      (error) => {
        setFailure(errorMessage(error));
        return false;
      },
    );
  return (
    <section aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      {failure && <ErrorMessage>{failure}</ErrorMessage>}
      {labels.error ? (
        <ErrorMessage>{labels.error}</ErrorMessage>
      ) : !labels.data ? (
        <Loading />
      ) : labels.data.length === 0 ? (
        <p class="muted">No labels.</p>
      ) : (
        <table class="prompts-table prompts-labels-table">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Version</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {labels.data.map((label) => (
              <tr key={label.release_label_id}>
                <th scope="row">{label.release_label}</th>
                <td>v{label.prompt_version_number}</td>
                {canEdit && (
                  <td>
                    <LabelActions
                      label={label}
                      latestVersion={latestVersion}
                      onDelete={() => act(deleteLabel(label.release_label_id))}
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canEdit && (
        <CreateLabel
          latestVersion={latestVersion}
          shownVersion={shownVersion}
          onCreate={(name, version) => act(createLabel(promptId, name, version))}
        />
      )}
    </section>
  );
}

function LabelActions({
  label,
  latestVersion,
  onDelete,
}: {
  label: Label;
  latestVersion: number;
  onDelete: () => Promise<unknown>;
}) {
  const [target, setTarget] = useState(String(latestVersion));
  const [confirming, setConfirming] = useState(false);
  const name = label.release_label;
  const id = `move-${label.release_label_id}`;
  if (confirming)
    return (
      <span class="prompts-actions">
        <span>Delete “{name}”?</span>
        <button type="button" class="danger" onClick={() => onDelete().finally(() => setConfirming(false))}>
          Delete
        </button>
        <button type="button" onClick={() => setConfirming(false)}>
          Keep
        </button>
      </span>
    );
  return (
    <form
      class="prompts-actions"
      onSubmit={(event) => {
        event.preventDefault();
        const to = positiveInt(target);
        if (to) setQuery({ move: name, to: String(to), compare: null, version: null });
      }}
    >
      <label for={id}>Move “{name}” to version</label>
      <input
        id={id}
        type="number"
        min={1}
        max={latestVersion}
        required
        value={target}
        onInput={(event) => setTarget(event.currentTarget.value)}
      />
      <button type="submit">Review move</button>
      <button type="button" aria-label={`Delete label ${name}`} onClick={() => setConfirming(true)}>
        Delete
      </button>
    </form>
  );
}

function CreateLabel({
  latestVersion,
  shownVersion,
  onCreate,
}: {
  latestVersion: number;
  shownVersion: number;
  onCreate: (name: string, version: number) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState(String(shownVersion));
  return (
    <form
      class="prompts-create-label"
      onSubmit={(event) => {
        event.preventDefault();
        const number = positiveInt(version);
        if (name && number) onCreate(name, number).then((created) => created && setName(''));
      }}
    >
      <label for="new-label-name">New label</label>
      <input
        id="new-label-name"
        required
        maxLength={255}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <label for="new-label-version">on version</label>
      <input
        id="new-label-version"
        type="number"
        min={1}
        max={latestVersion}
        required
        value={version}
        onInput={(event) => setVersion(event.currentTarget.value)}
      />
      <button type="submit">Create label</button>
    </form>
  );
}

import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { dashboardUrl, navigate } from '../../lib/url-state.ts';
import type { TemplateVersion } from '../prompts/api.ts';
import { DiffBody } from '../prompts/diff.tsx';
import { EMPTY_VERSION } from './draft.ts';

interface Published {
  prompt_name: string;
  version_number: number;
}

/**
 * Save the edited template as a new version (POST /rest/prompt-templates, the public publish route) of
 * the source's template, or of a template named here; the diff against the source version is shown
 * first and the publish needs a second, explicit click.
 */
export function SaveVersion({
  base,
  edited,
  onSaved,
}: {
  /** The version the edits started from (none: a request not linked to a prompt). */
  base: TemplateVersion | null;
  edited: TemplateVersion;
  onSaved?: (saved: Published) => void;
}) {
  const [name, setName] = useState(base?.prompt_name ?? '');
  const [message, setMessage] = useState('');
  const [reviewing, setReviewing] = useState(false);
  const [state, setState] = useState<{ busy?: boolean; error?: string; saved?: Published }>({});
  const savedPath = state.saved
    ? `prompts/${encodeURIComponent(state.saved.prompt_name)}?version=${state.saved.version_number}`
    : '';

  return (
    <section class="playground-save" aria-labelledby="save-title">
      <h2 id="save-title">Save as a new prompt version</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!reviewing) {
            setReviewing(true);
            setState({});
            return;
          }
          setState({ busy: true });
          api<Published>('POST', '/rest/prompt-templates', {
            body: {
              prompt_template: { prompt_name: name.trim() },
              prompt_version: {
                prompt_template: edited.prompt_template,
                metadata: edited.metadata,
                commit_message: message.trim() || null,
              },
            },
          }).then(
            (saved) => {
              setState({ saved });
              setReviewing(false);
              onSaved?.(saved);
            },
            (error) => setState({ error: errorMessage(error) }),
          );
        }}
      >
        <label>
          Template
          <input
            required
            maxLength={512}
            value={name}
            readOnly={base !== null}
            onInput={(event) => {
              setName(event.currentTarget.value);
              setReviewing(false);
            }}
          />
        </label>
        <label>
          Commit message
          <input
            maxLength={1000}
            value={message}
            onInput={(event) => setMessage(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={state.busy}>
          {reviewing ? 'Publish new version' : 'Review changes'}
        </button>
        {reviewing && (
          <button type="button" onClick={() => setReviewing(false)}>
            Cancel
          </button>
        )}
      </form>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      {state.saved && (
        <p role="status">
          Saved as{' '}
          <a
            href={dashboardUrl(savedPath)}
            onClick={(event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
                return;
              event.preventDefault();
              navigate(savedPath);
            }}
          >
            {state.saved.prompt_name} version {state.saved.version_number}
          </a>
          .
        </p>
      )}
      {reviewing && (
        <section aria-labelledby="review-title">
          <h3 id="review-title">
            {base ? `Changes from version ${base.version}` : 'A new template: everything is added'}
          </h3>
          <DiffBody from={base ?? EMPTY_VERSION} to={edited} />
        </section>
      )}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { deleteView, saveCurrentView, useSavedViews } from './lib/saved-views.ts';
import { dashboardUrl, navigate } from './lib/url-state.ts';

/** The header's saved views: open one, save the current view under a name, delete one. */
export function SavedViewsMenu() {
  const views = useSavedViews();
  const [name, setName] = useState('');
  return (
    <details class="saved-views">
      <summary>Views</summary>
      <div class="saved-views-panel">
        {views.length === 0 ? (
          <p class="muted">No saved views yet.</p>
        ) : (
          <ul class="saved-views-list" aria-label="Saved views">
            {views.map((view) => (
              <li key={view.name}>
                <a
                  href={dashboardUrl(view.path)}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                    event.preventDefault();
                    navigate(view.path);
                  }}
                >
                  {view.name}
                </a>
                <button type="button" class="link" onClick={() => deleteView(view.name)}>
                  Delete<span class="visually-hidden"> view {view.name}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            saveCurrentView(name);
            setName('');
          }}
        >
          <label for="saved-view-name">Save this view as</label>
          <input
            id="saved-view-name"
            value={name}
            maxLength={80}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <button type="submit" disabled={!name.trim()}>
            Save
          </button>
        </form>
      </div>
    </details>
  );
}

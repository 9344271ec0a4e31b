import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { GroupPicker, pickedGroupId } from '../../components/group-picker.tsx';
import { ErrorMessage } from '../../components/status.tsx';
import { navigate } from '../../lib/url-state.ts';

/**
 * Logs picked in the Requests table, to add to a dataset: a checkbox per row (shift-click picks the range
 * from the last one clicked; `x` or Space toggles the active row), and a bar that adds them to a group's
 * draft through add-request-log. The selection is of the page shown: it is cleared when the page changes.
 */
export interface RowSelection {
  selected: ReadonlySet<number>;
  /** Toggles row `index`; with `range`, sets every row from the last toggled one to it alike. */
  toggle(index: number, range: boolean): void;
  clear(): void;
}

export function useRowSelection(ids: readonly number[], activeIndex: number): RowSelection {
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [anchor, setAnchor] = useState<number | null>(null);
  const pageKey = ids.join(',');
  useEffect(() => {
    setSelected(new Set());
    setAnchor(null);
  }, [pageKey]);
  const toggle = (index: number, range: boolean) => {
    const id = ids[index];
    if (id === undefined) return;
    const next = new Set(selected);
    const on = !selected.has(id);
    const [from, to] =
      range && anchor !== null ? [Math.min(anchor, index), Math.max(anchor, index)] : [index, index];
    for (let at = from; at <= to; at++) {
      const rowId = ids[at]!;
      if (on) next.add(rowId);
      else next.delete(rowId);
    }
    setSelected(next);
    setAnchor(index);
  };
  // Set while rendering, so a key pressed right after a move (j, then x) toggles the row now active,
  // not the one a listener registered before the move would still see.
  const onKey = useRef<(event: KeyboardEvent) => void>(() => undefined);
  onKey.current = (event) => {
    if ((event.key !== 'x' && event.key !== ' ') || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    // A field, button or link keeps its own keys (Space on a checkbox toggles it already).
    if (target?.closest('input, textarea, select, button, a, summary, [contenteditable]')) return;
    event.preventDefault();
    toggle(activeIndex, event.shiftKey);
  };
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey.current(event);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);
  return { selected, toggle, clear: () => setSelected(new Set()) };
}

/** The checkbox of one row. */
export function SelectCell({ id, index, selection }: { id: number; index: number; selection: RowSelection }) {
  return (
    <td class="requests-select">
      <input
        type="checkbox"
        aria-label={`Select request ${id}`}
        checked={selection.selected.has(id)}
        // Space on the box clicks it too; shift-click sets the range (the boxes show the selection).
        onClick={(event) => selection.toggle(index, event.shiftKey)}
      />
    </td>
  );
}

interface GroupChoice {
  id: number;
  name: string;
}

/** "N selected", and the form that adds them to a group's draft (an existing group or a new one). */
export function SelectionBar({ selection, ids }: { selection: RowSelection; ids: readonly number[] }) {
  const count = selection.selected.size;
  const [open, setOpen] = useState(false);
  if (count === 0) return null;
  return (
    <EditOnly entity="datasets">
      <section class="requests-selection" aria-label="Selected requests">
        <span>{count} selected </span>
        <button type="button" onClick={() => setOpen(true)} aria-expanded={open}>
          Add {count} to dataset…
        </button>
        <button type="button" onClick={selection.clear}>
          Clear the selection
        </button>
        {open ? (
          // In the page's order, so the rows are in the table's order.
          <AddToDataset
            ids={ids.filter((id) => selection.selected.has(id))}
            onCancel={() => setOpen(false)}
          />
        ) : null}
      </section>
    </EditOnly>
  );
}

function AddToDataset({ ids, onCancel }: { ids: number[]; onCancel(): void }) {
  const [groups, setGroups] = useState<GroupChoice[]>([]);
  const [choice, setChoice] = useState('');
  const [newName, setNewName] = useState('');
  const [done, setDone] = useState<number | null>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const controller = new AbortController();
    api<{ datasets: { dataset_group: GroupChoice }[] }>('GET', '/api/public/v2/datasets', {
      query: { per_page: 100, sort_by: 'name', sort_order: 'asc' },
      signal: controller.signal,
    })
      .then(({ datasets }) => {
        const byId = new Map(datasets.map(({ dataset_group: group }) => [group.id, group]));
        setGroups([...byId.values()]);
      })
      .catch((failure) => {
        if (!controller.signal.aborted) setError(errorMessage(failure));
      });
    return () => controller.abort();
  }, []);
  const adding = done !== null;
  return (
    <form
      class="requests-add-to-dataset"
      onSubmit={async (event) => {
        event.preventDefault();
        setError(undefined);
        setDone(0);
        try {
          const groupId = await pickedGroupId(choice, newName);
          let draftId = 0;
          // One at a time: each appends a row to the same draft.
          for (const [at, id] of ids.entries()) {
            const added = await api<{ draft_dataset_id: number }>(
              'POST',
              '/api/public/v2/dataset-versions/add-request-log',
              { body: { dataset_group_id: groupId, request_log_id: id } },
            );
            draftId = added.draft_dataset_id;
            setDone(at + 1);
          }
          navigate(`datasets?${new URLSearchParams({ group: String(groupId), version: String(draftId) })}`);
        } catch (failure) {
          setError(errorMessage(failure));
          setDone(null);
        }
      }}
    >
      <GroupPicker
        idPrefix="requests-dataset"
        label="Dataset group"
        groups={groups}
        choice={choice}
        onChoice={setChoice}
        newName={newName}
        onNewName={setNewName}
        disabled={adding}
      />
      <button type="submit" disabled={adding || (!choice && !newName.trim())}>
        Add to the group's draft
      </button>
      <button type="button" onClick={onCancel} disabled={adding}>
        Cancel
      </button>
      {adding ? (
        <span role="status">
          Adding {done} of {ids.length}…
        </span>
      ) : null}
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </form>
  );
}

import { api } from '../api/client.ts';

/**
 * A dataset group chosen from a list, or "A new group…" with its name typed: `choice` is the chosen
 * group's id as text, or '' for a new one. Its labels are the caller's (a form may say "Group" or
 * "Dataset group"); ids start with `idPrefix`.
 */
export function GroupPicker(props: {
  idPrefix: string;
  label: string;
  groups: readonly { id: number; name: string }[];
  choice: string;
  onChoice: (choice: string) => void;
  newName: string;
  onNewName: (name: string) => void;
  disabled?: boolean;
}) {
  const { idPrefix, groups, disabled } = props;
  return (
    <>
      <label for={`${idPrefix}-group`}>{props.label}</label>
      <select
        id={`${idPrefix}-group`}
        value={props.choice}
        disabled={disabled}
        onChange={(event) => props.onChoice(event.currentTarget.value)}
      >
        <option value="">A new group…</option>
        {groups.map((group) => (
          <option key={group.id} value={String(group.id)}>
            {group.name}
          </option>
        ))}
      </select>
      {props.choice ? null : (
        <>
          <label for={`${idPrefix}-new-name`}>New group's name</label>
          <input
            id={`${idPrefix}-new-name`}
            value={props.newName}
            disabled={disabled}
            onInput={(event) => props.onNewName(event.currentTarget.value)}
          />
        </>
      )}
    </>
  );
}

/** The id of the group a GroupPicker chose: the chosen one, or a new group of the typed name, created now. */
export async function pickedGroupId(choice: string, newName: string): Promise<number> {
  const chosen = Number(choice);
  if (chosen) return chosen;
  const created = await api<{ dataset_group: { id: number } }>('POST', '/api/public/v2/dataset-groups', {
    body: { name: newName.trim() },
  });
  return created.dataset_group.id;
}

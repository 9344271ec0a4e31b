import {
  type HeadAndLatest as SharedHeadAndLatest,
  type HeadChange as SharedHeadChange,
  storedJsonBytes,
} from '#shared/versions/store.ts';
import { PROMPT_KIND, promptStore } from './kind.ts';
import type { LabelEntry, TemplateHead, VersionRecord } from './records.ts';

/**
 * Table access of the prompt registry, by the names the registry's code and tests use: the shared store
 * of versioned entities (shared/versions/store.ts) for the prompt template kind (kind.ts).
 */

export { PROMPT_KIND, promptStore };

export type HeadAndLatest = SharedHeadAndLatest<TemplateHead, VersionRecord>;

export const readHeadAndLatest = promptStore.readHeadAndLatest;
export const getHead = promptStore.getHead;
export const getVersion = promptStore.getVersion;
export const getTemplateItems = promptStore.getItems;
export const getTemplateName = promptStore.getName;
export const listHeads = promptStore.listHeads;
export const putVersion = promptStore.putVersion;

export interface LabelPointer {
  prompt_name: string;
  label: string;
}

export async function getLabelPointer(
  workspaceId: number,
  labelId: number,
): Promise<LabelPointer | undefined> {
  const pointer = await promptStore.getLabelPointer(workspaceId, labelId);
  return pointer && { prompt_name: pointer.name, label: pointer.label };
}

export interface Pointers {
  template?: { id: number; name: string };
  labels: { id: number; prompt_name: string; label: string }[];
}

export const putPointers = (workspaceId: number, pointers: Pointers) =>
  promptStore.putPointers(workspaceId, {
    entity: pointers.template,
    labels: pointers.labels.map(({ id, prompt_name, label }) => ({ id, name: prompt_name, label })),
  });

export interface LabelMove {
  name: string;
  id: number;
  fromVersion?: number;
  prompt_version_id: number;
  version_number: number;
}

export interface HeadChange extends Omit<SharedHeadChange<LabelEntry, never>, 'set' | 'move'> {
  tags?: string[];
  folderId?: number | null;
  move?: LabelMove[];
}

/** The shared updateHead with the prompt registry's names for the fields it changes. */
export const updateHead = (
  workspaceId: number,
  name: string,
  { tags, folderId, move, ...change }: HeadChange,
) =>
  promptStore.updateHead(workspaceId, name, {
    ...change,
    set: { tags, folder_id: folderId },
    move: move?.map(({ prompt_version_id, ...rest }) => ({ ...rest, versionId: prompt_version_id })),
  });

/** Byte size of a version as stored (the item limit is 400 KB). */
export const storedVersionBytes = (record: VersionRecord) => storedJsonBytes(record);

/** Byte size of a head as JSON, close to what DynamoDB counts of the item. */
export const storedHeadBytes = (head: Pick<TemplateHead, 'tags' | 'labels'>) =>
  storedJsonBytes({ tags: head.tags, labels: head.labels });

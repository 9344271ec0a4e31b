import { type Head, jsonDocVersions, type VersionKind } from '#shared/versions/kind.ts';
import { versionStore } from '#shared/versions/store.ts';
import type { ToolDefinition, ToolExecution } from './schemas.ts';

/**
 * Tools of the tool registry as the third kind of the shared versioned entities (shared/versions): one
 * partition per tool name under the tag `TL` (head, versions V#<n>, label copies), id pointers `TLID`
 * and `TLL`, the heads listed through GSI1 `W#<ws>#TOOLS`. A version is stored whole as JSON in `doc`.
 */

export interface ToolVersionRecord {
  id: number;
  tool_id: number;
  tool_name: string;
  number: number;
  tool_definition: ToolDefinition;
  /** The tool's body (absent on versions stored before tools had one). */
  execution?: ToolExecution | null;
  commit_message: string | null;
  /** The user of the key that published it. */
  user_id: number;
  /** Epoch milliseconds. */
  created_at: number;
}

export interface ToolLabelEntry {
  id: number;
  tool_version_id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

export interface ToolHeadFields {
  description: string | null;
  folder_id: number | null;
  /** The user of the key that created the tool. */
  user_id: number;
  /** That user's e-mail address when it had one. */
  user_email: string | null;
}

export type ToolHead = Head<ToolLabelEntry, ToolHeadFields>;

export const TOOL_KIND: VersionKind<ToolVersionRecord, ToolLabelEntry, ToolHeadFields> = {
  tag: 'TL',
  listing: 'TOOLS',
  ids: { entity: 'tool', version: 'tool_version', label: 'tool_label' },
  externalIdEntity: 'tool',
  noun: 'Tool',
  labelNoun: 'Tool label',
  versionIdField: 'tool_version_id',
  nameField: 'tool_name',
  placeOf: (version) => ({
    id: version.id,
    entityId: version.tool_id,
    name: version.tool_name,
    number: version.number,
    created_at: version.created_at,
  }),
  headFields: (item) => ({
    description: (item.description as string | null | undefined) ?? null,
    folder_id: (item.folder_id as number | null | undefined) ?? null,
    user_id: item.user_id as number,
    user_email: (item.user_email as string | null | undefined) ?? null,
  }),
  ...jsonDocVersions<ToolVersionRecord>(),
};

export const toolStore = versionStore(TOOL_KIND);

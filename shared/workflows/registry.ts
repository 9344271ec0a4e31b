import type { KindExternalId, KindIdKind } from '#shared/entities/kinds.ts';
import { type Head, jsonDocVersions, type VersionKind } from '#shared/versions/kind.ts';
import { versionStore } from '#shared/versions/store.ts';
import type { WorkflowEdge, WorkflowNode } from '#shared/workflows/definition.ts';

/**
 * Workflow definitions as a kind of the shared versioned entities (shared/versions): one partition per
 * workflow name under the tag `WF` (head, versions V#<n>, label copies), id pointers `WFID` and `WFL`,
 * the heads listed through GSI1 `W#<ws>#WORKFLOWS`. A version is stored whole as JSON in `doc`.
 */

/** A node as stored: the client's node with the id the version gave it. */
export type StoredNode = WorkflowNode & { id: string };
export type StoredEdge = WorkflowEdge & { id: string };

export interface WorkflowVersionRecord {
  id: number;
  workflow_id: number;
  workflow_name: string;
  number: number;
  nodes: StoredNode[];
  edges: StoredEdge[];
  required_input_variables: Record<string, string>;
  commit_message: string | null;
  /** The user of the key that published it. */
  user_id: number;
  /** Epoch milliseconds. */
  created_at: number;
}

export interface WorkflowLabelEntry {
  id: number;
  workflow_version_id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

export interface WorkflowHeadFields {
  folder_id: number | null;
  /** The user of the key that created the workflow. */
  user_id: number;
  /** That user's e-mail address when it had one (null too for workflows created before users had one). */
  user_email: string | null;
}

export type WorkflowHead = Head<WorkflowLabelEntry, WorkflowHeadFields>;

export const WORKFLOW_KIND: VersionKind<WorkflowVersionRecord, WorkflowLabelEntry, WorkflowHeadFields> = {
  tag: 'WF',
  listing: 'WORKFLOWS',
  ids: {
    entity: 'workflow' satisfies KindIdKind<'workflow'>,
    version: 'workflow_version',
    label: 'workflow_label',
  },
  externalIdEntity: 'workflow' satisfies KindExternalId<'workflow'>,
  noun: 'Workflow',
  labelNoun: 'Workflow label',
  versionIdField: 'workflow_version_id',
  nameField: 'workflow_name',
  placeOf: (version) => ({
    id: version.id,
    entityId: version.workflow_id,
    name: version.workflow_name,
    number: version.number,
    created_at: version.created_at,
  }),
  headFields: (item) => ({
    folder_id: (item.folder_id as number | null | undefined) ?? null,
    user_id: item.user_id as number,
    user_email: (item.user_email as string | null | undefined) ?? null,
  }),
  ...jsonDocVersions<WorkflowVersionRecord>(),
};

export const workflowStore = versionStore(WORKFLOW_KIND);

/**
 * Every table key and S3 key of datasets, spelled once. All start with the workspace, so a repository
 * function cannot reach another workspace's data. Access patterns and why: docs/datasets.md.
 *
 *   W#<ws>#DSG#<group>          DSG      the group (name, version counter)
 *   W#<ws>#DSG#<group>          DRAFT    the group's draft marker (one per group)
 *   W#<ws>#DSGNAME#<name>       DSGNAME  a group name, taken (unique per workspace)
 *   W#<ws>#DS#<dataset>         DS       a version or draft                    GSI1 W#<ws>#DSG#<group>#DS / <id>
 *                                                                              GSI2 W#<ws>#DS / <id>
 *   W#<ws>#DS#<dataset>         JOBFAILED  the last failed job's reason (TTL: a week)
 */
const pad = (id: number) => String(id).padStart(16, '0');

export const groupKey = (workspaceId: number, groupId: number) => ({
  PK: `W#${workspaceId}#DSG#${groupId}`,
  SK: 'DSG',
});

export const draftMarkerKey = (workspaceId: number, groupId: number) => ({
  PK: `W#${workspaceId}#DSG#${groupId}`,
  SK: 'DRAFT',
});

export const groupNameKey = (workspaceId: number, name: string) => ({
  PK: `W#${workspaceId}#DSGNAME#${name}`,
  SK: 'DSGNAME',
});

export const datasetKey = (workspaceId: number, datasetId: number) => ({
  PK: `W#${workspaceId}#DS#${datasetId}`,
  SK: 'DS',
});

/** Beside the dataset item, so it outlives a draft its failed job removed. */
export const jobFailureKey = (workspaceId: number, datasetId: number) => ({
  PK: `W#${workspaceId}#DS#${datasetId}`,
  SK: 'JOBFAILED',
});

/** The partitions listing datasets: those of one group (GSI1), those of the workspace (GSI2). */
export const groupDatasetsPartition = (workspaceId: number, groupId: number) =>
  `W#${workspaceId}#DSG#${groupId}#DS`;
export const workspaceDatasetsPartition = (workspaceId: number) => `W#${workspaceId}#DS`;

export const datasetIndexKeys = (workspaceId: number, groupId: number, datasetId: number) => ({
  GSI1PK: groupDatasetsPartition(workspaceId, groupId),
  GSI1SK: pad(datasetId),
  GSI2PK: workspaceDatasetsPartition(workspaceId),
  GSI2SK: pad(datasetId),
});

// ------------------------------------------------------------------------------------------------ S3

/** Everything a dataset owns lives below its prefix; a job's objects below the job's own prefix. */
export const datasetPrefix = (workspaceId: number, datasetId: number) =>
  `datasets/${workspaceId}/${datasetId}/`;

export const jobPrefix = (workspaceId: number, datasetId: number, jobId: string) =>
  `${datasetPrefix(workspaceId, datasetId)}${jobId}/`;

export const chunkKey = (workspaceId: number, datasetId: number, jobId: string, seq: number) =>
  `${jobPrefix(workspaceId, datasetId, jobId)}rows-${String(seq).padStart(6, '0')}.jsonl`;

export const manifestKey = (workspaceId: number, datasetId: number, jobId: string) =>
  `${jobPrefix(workspaceId, datasetId, jobId)}manifest.json`;

export const filterParamsKey = (workspaceId: number, datasetId: number, jobId: string) =>
  `${jobPrefix(workspaceId, datasetId, jobId)}filter-params.json`;

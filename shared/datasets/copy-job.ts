import type { JobDefinition } from './job-lifecycle.ts';
import { PermanentJobError } from './job-lifecycle.ts';
import { getDataset } from './repository.ts';

/**
 * The copy job of create-draft with `source_dataset_id`. Chunks and manifests are never changed once
 * written, so the draft's rows are the source's manifest itself: the copy is one pointer, however many
 * rows. Later changes to the draft write new chunks and a new manifest of its own.
 */
export const copyJob: JobDefinition = {
  type: 'copy',
  makesVersion: false,
  async run(dataset) {
    const source =
      dataset.sourceDatasetId === undefined
        ? undefined
        : await getDataset(dataset.workspaceId, dataset.sourceDatasetId, { consistent: true });
    if (!source) throw new PermanentJobError(`Source dataset ${dataset.sourceDatasetId} no longer exists`);
    return {
      manifestKey: source.manifestKey,
      columns: source.columns,
      rowCount: source.rowCount,
      rowsAdded: source.rowCount,
    };
  },
};

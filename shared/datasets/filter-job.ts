import { AppError } from '#shared/platform/errors.ts';
import { matchingRequestLogs } from '#shared/request-logs/query.ts';
import { FILTER_JOB_LOG_CAP, loadFilterParams } from './filter-params.ts';
import { type JobDefinition, PermanentJobError } from './job-lifecycle.ts';
import { manifestKey } from './keys.ts';
import { LogRowBuilder } from './log-rows.ts';
import { appendManifest, ChunkWriter, newManifest, readManifest, writeManifest } from './manifest.ts';

/**
 * The from-filter-params job: runs the stored query over the workspace's request logs (at most
 * FILTER_JOB_LOG_CAP), writes one row per matching log after the rows the draft already holds, and
 * makes the draft the group's next version. The query streams records in batches, so memory holds a
 * batch and a few chunks, not the 50,000 logs.
 */
export const filterJob: JobDefinition = {
  type: 'filter',
  makesVersion: true,
  async run(dataset, job) {
    const { workspaceId, id } = dataset;
    const params = await loadFilterParams(dataset);
    if (!params) throw new PermanentJobError('The dataset holds no filter parameters');
    const builder = new LogRowBuilder(params.variables_to_parse ?? []);
    const writer = new ChunkWriter(workspaceId, id, job.id);
    let rowsAdded = 0;
    try {
      for await (const records of matchingRequestLogs(workspaceId, params, FILTER_JOB_LOG_CAP)) {
        await writer.add(records.map((record) => builder.row(record)));
        rowsAdded += records.length;
      }
    } catch (error) {
      // The query was checked when the job was accepted; a 4xx now (rules changed) will not go away.
      if (error instanceof AppError && error.status < 500) throw new PermanentJobError(error.message);
      throw error;
    }
    const chunks = await writer.finish();
    const { columns, keys } = builder.layout();
    const base = dataset.manifestKey ? await readManifest(dataset.manifestKey) : undefined;
    const manifest = appendManifest(base, newManifest(columns, keys, chunks));
    const key = manifestKey(workspaceId, id, job.id);
    await writeManifest(key, manifest);
    return { manifestKey: key, columns: manifest.columns, rowCount: manifest.rowCount, rowsAdded };
  },
  successEvent: (dataset, job) => ({
    type: 'dataset_version_created_from_filter_params',
    details: {
      dataset_id: dataset.id,
      rows_added: job.rowsAdded ?? 0,
      dataset_version_number: dataset.versionNumber,
    },
  }),
  // Not one of PromptLayer's documented events: without it a client would never learn that its job gave up.
  failureEvent: (dataset, errorMessage) => ({
    type: 'dataset_version_created_from_filter_params_failed',
    details: { dataset_id: dataset.id, error_message: errorMessage },
  }),
};

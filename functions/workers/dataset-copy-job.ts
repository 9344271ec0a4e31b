import { copyJob } from '#shared/datasets/copy-job.ts';
import { datasetJobHandler } from '#shared/datasets/job-lifecycle.ts';

/** Queue `dataset-copy-jobs`: gives a new draft the rows of its source version (create-draft, 202). */
export const handler = datasetJobHandler(copyJob);

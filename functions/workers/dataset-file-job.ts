import { fileJob } from '#shared/datasets/file-job.ts';
import { datasetJobHandler } from '#shared/datasets/job-lifecycle.ts';

/** Queue `dataset-file-jobs`: parses an uploaded file into a new version of its group (from-file). */
export const handler = datasetJobHandler(fileJob);

import { filterJob } from '#shared/datasets/filter-job.ts';
import { datasetJobHandler } from '#shared/datasets/job-lifecycle.ts';

/** Queue `dataset-filter-jobs`: fills a group's draft from request logs and makes it a version (from-filter-params). */
export const handler = datasetJobHandler(filterJob);

import type { JobQueueDef, RouteDef } from '../route-types.ts';

/** Dataset groups, versions and drafts, and the jobs that build versions. */
export const DATASET_ROUTES: readonly RouteDef[] = [];

export const DATASET_JOB_QUEUES: Record<string, JobQueueDef> = {};

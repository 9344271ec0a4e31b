import type { JobQueueDef, RouteDef, ScheduleDef } from '../route-types.ts';

/** Runs of workflows: the run and results routes, the node queue and the watchdog (the engine part). */
export const WORKFLOW_RUN_ROUTES: readonly RouteDef[] = [];
export const WORKFLOW_JOB_QUEUES: Readonly<Record<string, JobQueueDef>> = {};
export const WORKFLOW_SCHEDULES: Readonly<Record<string, ScheduleDef>> = {};

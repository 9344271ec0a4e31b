import type { ChangeConsumerDef, EventRuleDef, JobQueueDef, RouteDef, ScheduleDef } from './route-types.ts';
import { ANALYTICS_CHANGE_CONSUMERS, ANALYTICS_ROUTES } from './routes/analytics.ts';
import { CLIENT_ROUTES } from './routes/clients.ts';
import { COST_JOB_QUEUES, COST_ROUTES } from './routes/costs.ts';
import { DATASET_JOB_QUEUES, DATASET_ROUTES } from './routes/datasets.ts';
import { ENV_VAR_ROUTES } from './routes/env-vars.ts';
import { EVENT_SCHEDULES } from './routes/events.ts';
import { FOLDER_ROUTES } from './routes/folders.ts';
import { MONITOR_ROUTES, MONITOR_SCHEDULES } from './routes/monitors.ts';
import { OPENAPI_ROUTES } from './routes/openapi.ts';
import { PROMPT_ROUTES } from './routes/prompts.ts';
import { PROVIDER_ROUTES } from './routes/providers.ts';
import { REPLAY_JOB_QUEUES, REPLAY_ROUTES } from './routes/replay.ts';
import { REPORT_RESULT_ROUTES } from './routes/report-results.ts';
import { REPORT_RUN_JOB_QUEUES, REPORT_RUN_ROUTES } from './routes/report-runs.ts';
import { REPORT_ROUTES } from './routes/reports.ts';
import { REQUEST_LOG_ROUTES } from './routes/request-logs.ts';
import { SKILL_COLLECTION_ROUTES } from './routes/skill-collections.ts';
import { TOOL_ROUTES } from './routes/tools.ts';
import { TRACE_ROUTES } from './routes/traces.ts';
import { UI_ROUTES } from './routes/ui.ts';
import { WEBHOOK_EVENT_RULES, WEBHOOK_JOB_QUEUES, WEBHOOK_ROUTES } from './routes/webhooks.ts';
import {
  RUN_UPDATES_SOCKET_ACCESS,
  WORKFLOW_JOB_QUEUES,
  WORKFLOW_RUN_ROUTES,
  WORKFLOW_SCHEDULES,
} from './routes/workflow-runs.ts';
import { WORKFLOW_ROUTES } from './routes/workflows.ts';

export type {
  ChangeConsumerDef,
  EventRuleDef,
  HttpMethod,
  JobQueueDef,
  RouteDef,
  ScheduleDef,
} from './route-types.ts';

/** The API's one stage: its URLs are `<ApiUrl>` = `https://.../v1/` (the published document's server). */
export const API_STAGE_NAME = 'v1';

/**
 * The route rows by feature, as they live under `routes/`. In AWS each group's functions are one nested
 * stack (CloudFormation takes at most 500 resources per stack), so a new feature file is a new entry
 * here, and a new row in an existing file lands in that feature's stack.
 */
export const ROUTE_GROUPS: Readonly<Record<string, readonly RouteDef[]>> = {
  'request-logs': REQUEST_LOG_ROUTES,
  clients: CLIENT_ROUTES,
  prompts: PROMPT_ROUTES,
  datasets: DATASET_ROUTES,
  traces: TRACE_ROUTES,
  webhooks: WEBHOOK_ROUTES,
  workflows: WORKFLOW_ROUTES,
  'workflow-runs': WORKFLOW_RUN_ROUTES,
  providers: PROVIDER_ROUTES,
  reports: REPORT_ROUTES,
  'report-runs': REPORT_RUN_ROUTES,
  'report-results': REPORT_RESULT_ROUTES,
  tools: TOOL_ROUTES,
  folders: FOLDER_ROUTES,
  'skill-collections': SKILL_COLLECTION_ROUTES,
  replay: REPLAY_ROUTES,
  costs: COST_ROUTES,
  analytics: ANALYTICS_ROUTES,
  monitors: MONITOR_ROUTES,
  'env-vars': ENV_VAR_ROUTES,
  // The public files, the dashboard's and the OpenAPI document, share a stack: each nested stack is one
  // more resource of the root stack, which is at its budget (STACK_RESOURCE_BUDGET).
  ui: [...UI_ROUTES, ...OPENAPI_ROUTES],
};

/**
 * The route table: the single source of truth for the HTTP API. The CDK stack builds one Lambda per
 * row and the local gateway serves the same rows. Rows live with their feature under `routes/`;
 * adding an endpoint = one handler file + one row there.
 */
export const ROUTES: readonly RouteDef[] = Object.values(ROUTE_GROUPS).flat();

/** The API's operations: the route table without its public files (`site` rows: the dashboard, the document). */
export const API_ROUTES: readonly RouteDef[] = ROUTES.filter((route) => !route.site);

/** The job queues, by name, and the worker each one feeds. */
export const JOB_QUEUES: Readonly<Record<string, JobQueueDef>> = {
  ...DATASET_JOB_QUEUES,
  ...WEBHOOK_JOB_QUEUES,
  ...WORKFLOW_JOB_QUEUES,
  ...REPORT_RUN_JOB_QUEUES,
  ...REPLAY_JOB_QUEUES,
  ...COST_JOB_QUEUES,
};
export type JobQueueName = string;

/** Rules on the project bus, by name: which events go to which job queue. */
export const EVENT_RULES: Readonly<Record<string, EventRuleDef>> = { ...WEBHOOK_EVENT_RULES };

/** Functions run on a timer, by name. */
export const SCHEDULES: Readonly<Record<string, ScheduleDef>> = {
  ...EVENT_SCHEDULES,
  ...WORKFLOW_SCHEDULES,
  ...MONITOR_SCHEDULES,
};

/** Consumers of the table's change feed, by name (DynamoDB Streams in AWS, the local capture locally). */
export const CHANGE_CONSUMERS: Readonly<Record<string, ChangeConsumerDef>> = {
  ...ANALYTICS_CHANGE_CONSUMERS,
};

export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';

/** What the run updates' WebSocket endpoint may touch (the local runtime serves it). */
export { RUN_UPDATES_SOCKET_ACCESS };

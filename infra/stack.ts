import { fileURLToPath } from 'node:url';
import { CfnOutput, NestedStack, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV, MAX_REQUEST_BODY_BYTES } from '#shared/platform/config.ts';
import { PROMPT_CACHE_TTL_ENV, parsePromptCacheTtl } from '#shared/prompts/cache-settings.ts';
import { Alarms } from './constructs/alarms.ts';
import { ChangeConsumers } from './constructs/change-consumers.ts';
import { DataStore } from './constructs/data-store.ts';
import { HttpApi, type Throttle } from './constructs/http-api.ts';
import { JobQueues } from './constructs/job-queues.ts';
import { ProjectEvents } from './constructs/project-events.ts';
import { RequestSizeGuard } from './constructs/request-size-guard.ts';
import { Schedules } from './constructs/schedules.ts';
import { checkSettingsDeclared } from './constructs/settings.ts';
import {
  AUTHORIZER_HANDLER,
  CHANGE_CONSUMERS,
  EVENT_RULES,
  JOB_QUEUES,
  type JobQueueDef,
  ROUTE_GROUPS,
  SCHEDULES,
} from './routes.ts';

/** The construct id of the nested stack of workers, schedules and change consumers. */
export const WORKERS_STACK_ID = 'Workers';

/** The repository root: handler paths in `routes.ts` are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface PromptopsStackProps extends StackProps {
  /** Deployment stage (`dev`, `prod`, ...): names the event bus and the stack's outputs. */
  stage: string;
  /** WAF web ACL refusing bodies over MAX_REQUEST_BODY_BYTES with 413. Default true. */
  requestSizeGuard?: boolean;
  /** Alarm notifications go to this address (SNS email subscription, to be confirmed). */
  alarmEmail?: string;
  /** DynamoDB deletion protection. Default: on for `prod` only. */
  deletionProtection?: boolean;
  /** Stage-wide API throttling. */
  throttle?: Throttle;
  logRetention?: RetentionDays;
  /**
   * Lifetime of GET /prompt-templates/{identifier} answers in each container's memory, seconds >= 0
   * (0: no cache). Default DEFAULT_PROMPT_CACHE_TTL_SECONDS. The longest a read can lag a change.
   */
  promptCacheTtlSeconds?: number;
  /**
   * The deployment's LLM endpoints (OPENAI_BASE_URL, ANTHROPIC_BASE_URL of the functions that call
   * providers), http(s) URLs. Default the providers' own APIs. The keys are not props: they live in the
   * provider credentials secret (docs/deployment.md).
   */
  openaiBaseUrl?: string;
  anthropicBaseUrl?: string;
  /** Longest wait for one LLM call, ms (PROVIDER_TIMEOUT_MS), a whole number >= 1. Default 120 000. */
  providerTimeoutMs?: number;
  /**
   * Origins the dashboard is also served from (a custom domain or a proxy in front of the API, e.g.
   * `https://api.example.com`): the bucket's CORS rule lets their pages PUT uploads to presigned URLs,
   * as it lets the API's default endpoint (known at deploy, the only origin by default).
   */
  dashboardOrigins?: readonly string[];
}

/**
 * The whole service, driven by the tables of `routes.ts` (routes, job queues, bus rules, schedules,
 * change consumers): a new row there is a new function, queue, rule, schedule or stream consumer here
 * with no edit to this file.
 */
export class PromptopsStack extends Stack {
  readonly data: DataStore;
  readonly events: ProjectEvents;
  /** The nested stack of the job workers, schedules and change consumers. */
  readonly workers: NestedStack;
  readonly jobs: JobQueues;
  readonly schedules: Schedules;
  readonly changeConsumers: ChangeConsumers;
  readonly http: HttpApi;

  constructor(scope: Construct, id: string, props: PromptopsStackProps) {
    super(scope, id, props);
    const { stage, logRetention } = props;
    // Checked here so that a bad value fails the synth, not every read after the deployment.
    const settings: Record<string, string> = {};
    if (props.promptCacheTtlSeconds !== undefined) {
      const ttl = String(props.promptCacheTtlSeconds);
      settings[PROMPT_CACHE_TTL_ENV] = String(parsePromptCacheTtl(ttl, 'promptCacheTtlSeconds'));
    }
    Object.assign(settings, providerSettings(props));
    checkSettingsDeclared(settings, [
      ...Object.values(ROUTE_GROUPS).flat(),
      ...Object.values(JOB_QUEUES),
      ...Object.values(SCHEDULES),
      ...Object.values(CHANGE_CONSUMERS),
    ]);

    this.data = new DataStore(this, 'Data', {
      deletionProtection: props.deletionProtection ?? stage === 'prod',
    });
    this.events = new ProjectEvents(this, 'Events', { stage });
    const shared = {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      masterKey: this.data.masterKey,
      providerCredentials: this.data.providerCredentials,
    };

    // The functions fed by queues, schedules and the table's stream, with their alarms: not in the root,
    // which the API's paths and methods fill (docs/deployment.md#stack-size-and-nested-stacks). The job
    // queues stay in the root: bus rules and route functions reference them, and they hold messages.
    this.workers = new NestedStack(this, WORKERS_STACK_ID, {
      description: 'promptops workers, schedules and change consumers',
    });
    this.jobs = new JobQueues(this, 'Jobs', {
      root: REPO_ROOT,
      queues: JOB_QUEUES as Readonly<Record<string, JobQueueDef>>,
      resources: shared,
      logRetention,
      settings,
      workerScope: this.workers,
    });
    this.events.addQueueRules(EVENT_RULES, this.jobs.queues);
    const resources = { ...shared, queues: this.jobs.queues };

    this.schedules = new Schedules(this.workers, 'Schedules', {
      root: REPO_ROOT,
      schedules: SCHEDULES,
      resources,
      logRetention,
      settings,
    });

    this.changeConsumers = new ChangeConsumers(this.workers, 'ChangeConsumers', {
      root: REPO_ROOT,
      consumers: CHANGE_CONSUMERS,
      resources,
      logRetention,
      settings,
    });

    this.http = new HttpApi(this, 'Http', {
      name: `promptops-${stage}`,
      root: REPO_ROOT,
      routeGroups: ROUTE_GROUPS,
      authorizerEntry: AUTHORIZER_HANDLER,
      resources,
      throttle: props.throttle,
      logRetention,
      settings,
    });

    // Browsers PUT dataset files to presigned URLs from the dashboard's pages, and only from them.
    this.data.allowBrowserUploads([this.http.origin, ...checkOrigins(props.dashboardOrigins ?? [])]);

    if (props.requestSizeGuard ?? true) {
      new RequestSizeGuard(this, 'RequestSizeGuard', {
        stage: this.http.api.deploymentStage,
        maxBodyBytes: MAX_REQUEST_BODY_BYTES,
        metricPrefix: `promptops-${stage}`,
      });
    } else {
      Validations.of(this.http.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'The deployer turned the WAF size guard off (requestSizeGuard=false, meant for development stages): the stage then has no web ACL, and a body over 6 MB fails in Lambda instead of getting a 413',
      });
    }

    const alarms = new Alarms(this, 'Alarms', { email: props.alarmEmail });
    alarms.watchApi(this.http);
    alarms.watchJobs(this.jobs);
    alarms.watchBusRules(this.events);
    alarms.watchSchedules(this.schedules);
    alarms.watchChangeConsumers(this.changeConsumers);

    new CfnOutput(this, 'ApiUrl', {
      value: this.http.api.url,
      description: 'Base URL of the API (stage v1)',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'EventBusName', { value: this.events.bus.eventBusName });
    new CfnOutput(this, 'MasterKeySecretArn', {
      value: this.data.masterKey.secretArn,
      description: 'The master key (Secrets Manager); kept on destroy, back it up',
    });
    new CfnOutput(this, 'ProviderCredentialsSecretArn', {
      value: this.data.providerCredentials.secretArn,
      description:
        'The deployment\'s LLM provider keys (Secrets Manager, JSON {"OPENAI_API_KEY": "...", "ANTHROPIC_API_KEY": "..."}); empty until you put them',
    });
  }
}

/** The provider settings a deployment overrides, checked (a bad value fails the synth). */
function providerSettings(props: PromptopsStackProps): Record<string, string> {
  const settings: Record<string, string> = {};
  const urls = [
    ['openaiBaseUrl', ENV.openaiBaseUrl, props.openaiBaseUrl],
    ['anthropicBaseUrl', ENV.anthropicBaseUrl, props.anthropicBaseUrl],
  ] as const;
  for (const [prop, name, value] of urls) {
    if (value === undefined) continue;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw new Error(`${prop} must be an http(s) URL, got "${value}"`);
    }
    settings[name] = value.replace(/\/+$/, '');
  }
  const timeout = props.providerTimeoutMs;
  if (timeout !== undefined) {
    if (!Number.isSafeInteger(timeout) || timeout < 1) {
      throw new Error(`providerTimeoutMs must be a whole number of milliseconds >= 1, got ${timeout}`);
    }
    settings[ENV.providerTimeoutMs] = String(timeout);
  }
  return settings;
}

/** Bare https origins (no path, no trailing slash), as a browser sends them in `Origin`. */
function checkOrigins(origins: readonly string[]): string[] {
  for (const origin of origins) {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    if (url?.protocol !== 'https:' || url.origin !== origin) {
      throw new Error(`dashboardOrigins must be https origins like https://api.example.com, got "${origin}"`);
    }
  }
  return [...origins];
}

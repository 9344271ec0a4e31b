import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_ASSET_FILE, openApiLambdaBundling, siteLambdaBundling } from '#infra/bundling.ts';
import { Alarms } from '#infra/constructs/alarms.ts';
import { API_KEY_HEADER, routeGroupStackId } from '#infra/constructs/http-api.ts';
import { eventSourceConcurrency, JobQueues } from '#infra/constructs/job-queues.ts';
import { nagChecks } from '#infra/constructs/nag-checks.ts';
import { pascalCase } from '#infra/constructs/naming.ts';
import { ProjectEvents } from '#infra/constructs/project-events.ts';
import { contentLengthOverRegex } from '#infra/constructs/request-size-guard.ts';
import { Schedules } from '#infra/constructs/schedules.ts';
import { ServiceFunction } from '#infra/constructs/service-function.ts';
import { STACK_RESOURCE_BUDGET, stackSizes, stacksOf } from '#infra/constructs/stack-size.ts';
import { bodyTooLarge, GATEWAY_ERRORS, gatewayErrorBody } from '#infra/gateway-errors.ts';
import { OPENAPI_FILE, REPO_ROOT } from '#infra/openapi/document.ts';
import {
  CHANGE_CONSUMERS,
  EVENT_RULES,
  type EventRuleDef,
  JOB_QUEUES,
  type JobQueueDef,
  ROUTE_GROUPS,
  ROUTES,
  SCHEDULES,
  type ScheduleDef,
} from '#infra/routes.ts';
import { PromptopsStack, WORKERS_STACK_ID } from '#infra/stack.ts';
import { CONTENT_SECURITY_POLICY } from '#shared/dashboard/site.ts';
import {
  AUTHORIZER_CACHE_TTL_SECONDS,
  ENV,
  MAX_REQUEST_BODY_BYTES,
  queueUrlEnv,
} from '#shared/platform/config.ts';
import { TABLE_INDEXES, TABLE_KEYS, TTL_ATTRIBUTE } from '#shared/platform/table-schema.ts';
import { DEFAULT_PROMPT_CACHE_TTL_SECONDS, PROMPT_CACHE_TTL_ENV } from '#shared/prompts/cache-settings.ts';
import { REPLAY_BATCH_QUEUE } from '#shared/replay/batch.ts';
import { REPLAY_QUEUE } from '#shared/replay/replay.ts';
import { REPORT_ROWS_QUEUE } from '#shared/reports/run/queue.ts';
import { WORKFLOW_NODE_QUEUE } from '#shared/workflows/engine/queue.ts';

type Resource = { Type: string; Properties: any; DeletionPolicy?: string; UpdateReplacePolicy?: string };

const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
const FAKE_QUEUES: Record<string, JobQueueDef> = {
  'fake-jobs': {
    worker: 'functions/workers/fake-worker.ts',
    batchSize: 5,
    maxReceiveCount: 4,
    timeoutSeconds: 30,
    memoryMb: 512,
    table: 'write',
    bucket: 'read',
    queues: ['fake-jobs'],
  },
  'fake-fanout': {
    worker: 'functions/workers/fake-worker.ts',
    batchSize: 10,
    maxReceiveCount: 5,
    timeoutSeconds: 20,
    memoryMb: 256,
    table: 'read',
    maxConcurrency: 1,
    masterKey: true,
  },
  'fake-delivery': {
    worker: 'functions/workers/fake-worker.ts',
    batchSize: 1,
    maxReceiveCount: 8,
    timeoutSeconds: 20,
    memoryMb: 256,
    table: 'write',
    maxConcurrency: 5,
    providerCredentials: true,
    environment: { FAKE_BASE_URL: 'https://default.example.com', FAKE_LIMIT: '7' },
  },
};
const FAKE_RULES: Record<string, EventRuleDef> = {
  'fake-prompts': {
    queue: 'fake-fanout',
    eventTypes: ['prompt_template_version_created', 'prompt_template_label_moved'],
    description: 'prompt events to the fan-out',
  },
  'fake-everything': { queue: 'fake-delivery', description: 'every event to the delivery queue' },
};
const FAKE_SCHEDULES: Record<string, ScheduleDef> = {
  'fake-sweep': {
    handler: 'functions/workers/fake-worker.ts',
    everyMinutes: 5,
    description: 'fake sweep',
    table: 'write',
    events: true,
    masterKey: true,
    timeoutSeconds: 60,
    environment: { FAKE_SWEEP_AGE: '30' },
  },
};

/** Routes, the authorizer, workers, scheduled functions and change consumers of the real tables. */
const FUNCTION_COUNT =
  ROUTES.length +
  1 +
  Object.keys(JOB_QUEUES).length +
  Object.keys(SCHEDULES).length +
  Object.keys(CHANGE_CONSUMERS).length;

let dev: Template;
let prod: Template;
let jobs: Template;
let devStack: PromptopsStack;
let fakeRoot: string;
/** cdk-nag findings not acknowledged, per synthesized scope. */
let findings: Record<'dev' | 'prod' | 'fakeRows', string[]>;

/** Every finding of the AWS Solutions and Serverless packs on `scope` that no construct acknowledges. */
function nagFindings(scope: IConstruct): string[] {
  return nagChecks()
    .flatMap((pack) => pack.validateScope(scope).violations)
    .flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
    );
}

// One App, one synthesis, three stacks: the real stack as `dev` (defaults) and as `prod` (no WAF, alarm
// email), and the constructs fed made-up JOB_QUEUES, EVENT_RULES and SCHEDULES rows whose handlers live
// in a temp directory. cdk-nag then checks the synthesized construct trees (no second synthesis).
beforeAll(() => {
  fakeRoot = mkdtempSync(join(tmpdir(), 'promptops-infra-'));
  writeFileSync(join(fakeRoot, 'package-lock.json'), '{}');
  mkdirSync(join(fakeRoot, 'functions', 'workers'), { recursive: true });
  writeFileSync(
    join(fakeRoot, 'functions', 'workers', 'fake-worker.ts'),
    'export const handler = async () => ({});\n',
  );
  writeFileSync(join(fakeRoot, 'functions', 'fake-route.ts'), 'export const handler = async () => ({});\n');

  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  devStack = new PromptopsStack(app, 'promptops-dev', { stage: 'dev' });
  const prodStack = new PromptopsStack(app, 'promptops-prod', {
    stage: 'prod',
    requestSizeGuard: false,
    alarmEmail: 'ops@example.com',
    promptCacheTtlSeconds: 5,
    openaiBaseUrl: 'https://llm.example.com/v1/',
    providerTimeoutMs: 30_000,
    dashboardOrigins: ['https://api.example.com'],
  });

  const jobsStack = new Stack(app, 'jobs');
  const table = new Table(jobsStack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  const events = new ProjectEvents(jobsStack, 'Events', { stage: 'fake' });
  const shared = {
    table,
    bucket: new Bucket(jobsStack, 'Bucket'),
    eventBus: events.bus,
    masterKey: new Secret(jobsStack, 'MasterKey'),
    providerCredentials: new Secret(jobsStack, 'ProviderCredentials'),
  };
  const queues = new JobQueues(jobsStack, 'Jobs', { root: fakeRoot, queues: FAKE_QUEUES, resources: shared });
  events.addQueueRules(FAKE_RULES, queues.queues);
  const schedules = new Schedules(jobsStack, 'Schedules', {
    root: fakeRoot,
    schedules: FAKE_SCHEDULES,
    resources: { ...shared, queues: queues.queues },
  });
  new ServiceFunction(jobsStack, 'Route', {
    root: fakeRoot,
    entry: 'functions/fake-route.ts',
    description: 'POST /fake',
    access: { table: 'write', queues: ['fake-jobs'], events: true },
    resources: { ...shared, queues: queues.queues },
    invocation: { kind: 'api' },
  });
  const alarms = new Alarms(jobsStack, 'Alarms');
  alarms.watchJobs(queues);
  alarms.watchBusRules(events);
  alarms.watchSchedules(schedules);

  dev = wholeTemplate(devStack);
  prod = wholeTemplate(prodStack);
  jobs = Template.fromStack(jobsStack);
  findings = {
    dev: nagFindings(devStack),
    prod: nagFindings(prodStack),
    // The fake table and bucket are bare; the constructs built from the rows must be clean.
    fakeRows: [events, queues, schedules].flatMap(nagFindings),
  };
});

afterAll(() => rmSync(fakeRoot, { recursive: true, force: true }));

/** Replaces, anywhere in `value`, each object that `swap` returns a substitute for. */
function substitute(value: unknown, swap: (node: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, swap));
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const swapped = swap(node);
  if (swapped !== undefined) return swapped;
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, substitute(item, swap)]));
}

/**
 * The stack and its nested stacks as one template, as if they were one stack: a nested stack's
 * parameter becomes the value the root passes to it, and the root's reference to a nested output
 * (`Fn::GetAtt [Nested, Outputs.X]`) becomes that output's value. So the assertions read what each
 * resource is wired to, wherever CloudFormation keeps it; the limits per stack are tested apart.
 */
function wholeTemplate(stack: Stack): Template {
  const root = Template.fromStack(stack).toJSON();
  const resources: Record<string, unknown> = { ...root.Resources };
  const outputs = new Map<string, unknown>();
  for (const nested of stacksOf(stack).slice(1)) {
    const stackId = stack.getLogicalId(nested.nestedStackResource as CfnElement);
    const parameters: Record<string, unknown> = root.Resources[stackId].Properties.Parameters ?? {};
    const template = substitute(Template.fromStack(nested).toJSON(), (node) => {
      const ref = node.Ref;
      return typeof ref === 'string' && Object.hasOwn(parameters, ref) ? parameters[ref] : undefined;
    }) as { Resources: Record<string, unknown>; Outputs?: Record<string, { Value: unknown }> };
    for (const [id, resource] of Object.entries(template.Resources)) {
      expect(resources, `logical id ${id} in two stacks`).not.toHaveProperty(id);
      resources[id] = resource;
    }
    for (const [name, output] of Object.entries(template.Outputs ?? {})) {
      outputs.set(JSON.stringify([stackId, `Outputs.${name}`]), output.Value);
    }
  }
  return Template.fromJSON({
    ...root,
    Resources: substitute(resources, (node) => {
      const getAtt = node['Fn::GetAtt'];
      return Array.isArray(getAtt) ? outputs.get(JSON.stringify(getAtt)) : undefined;
    }),
  });
}

function resources(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0]!;
}

function functionByDescription(template: Template, description: string): [string, Resource] {
  return only(
    resources(template, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.Description === description,
    ),
  );
}

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/**
 * The statements of every identity policy in the template, by the role they are on: a role's own
 * inline policies (`Policies`, where function roles keep their grants) and `AWS::IAM::Policy` resources.
 */
function roleStatements(template: Template): [string, Statement][] {
  const inline = resources(template, 'AWS::IAM::Role').flatMap(([roleId, role]) =>
    (role.Properties.Policies ?? []).flatMap((policy: { PolicyDocument: { Statement: Statement[] } }) =>
      policy.PolicyDocument.Statement.map((statement): [string, Statement] => [roleId, statement]),
    ),
  );
  const attached = resources(template, 'AWS::IAM::Policy').flatMap(([, policy]) =>
    (policy.Properties.Roles as { Ref?: string }[]).flatMap((role) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement): [string, Statement] => [
        role.Ref ?? '',
        statement,
      ]),
    ),
  );
  return [...inline, ...attached];
}

/** Every action the function's role may perform, from the IAM policies on that role. */
function actionsOf(template: Template, functionId: string): string[] {
  const [, fn] = only(resources(template, 'AWS::Lambda::Function').filter(([id]) => id === functionId));
  const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
  return roleStatements(template)
    .filter(([role]) => role === roleId)
    .flatMap(([, statement]) => [statement.Action].flat());
}

/** The secrets (logical ids) the function's role may read (secretsmanager:GetSecretValue). */
function secretsReadBy(template: Template, functionId: string): string[] {
  const [, fn] = only(resources(template, 'AWS::Lambda::Function').filter(([id]) => id === functionId));
  const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
  return roleStatements(template)
    .filter(
      ([role, statement]) =>
        role === roleId && [statement.Action].flat().includes('secretsmanager:GetSecretValue'),
    )
    .flatMap(([, statement]) => [statement.Resource].flat())
    .map((resource) => (resource as { Ref?: string }).Ref ?? JSON.stringify(resource));
}

/** Resources whose logical id starts with `prefix` (the construct path, e.g. `JobsFakeJobsQueue`). */
function withIdPrefix(template: Template, type: string, prefix: string): [string, Resource][] {
  return resources(template, type).filter(([id]) => id.startsWith(prefix));
}

function expectDeadLetterAlarm(template: Template, queueId: string): void {
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
  });
}

/** The queue's policy lets EventBridge send only on behalf of the given rule. */
function expectOnlyRuleMaySend(template: Template, queueId: string, ruleId: string): void {
  const statements = resources(template, 'AWS::SQS::QueuePolicy')
    .filter(([, policy]) => policy.Properties.Queues.some((queue: { Ref?: string }) => queue.Ref === queueId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement)
    .filter((statement: { Effect: string }) => statement.Effect === 'Allow');
  expect(
    statements.map((statement: { Principal: unknown; Action: string | string[]; Condition: unknown }) => ({
      principal: statement.Principal,
      sends: [statement.Action].flat().includes('sqs:SendMessage'),
      condition: statement.Condition,
    })),
  ).toEqual([
    {
      principal: { Service: 'events.amazonaws.com' },
      sends: true,
      condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
    },
  ]);
}

function routeLabel(route: { method: string; path: string }): string {
  return `${route.method} ${route.path}`;
}

describe('data', () => {
  it('builds the table from table-schema.ts: keys, GSIs with every attribute, TTL, PITR, on demand', () => {
    const gsiAttributes = TABLE_INDEXES.flatMap((index) => [index.partition, index.sort]);
    dev.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith(
        [TABLE_KEYS.partition, TABLE_KEYS.sort, ...gsiAttributes].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
      ),
      GlobalSecondaryIndexes: TABLE_INDEXES.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partition, KeyType: 'HASH' },
          { AttributeName: index.sort, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it('keeps the table and the bucket on destroy; deletion protection is on in prod only', () => {
    for (const template of [dev, prod]) {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
      template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    dev.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    prod.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
  });

  it('encrypts the bucket, blocks public access, expires uploads and allows presigned PUTs', () => {
    dev.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      VersioningConfiguration: Match.absent(),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
          Match.objectLike({ Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }),
        ]),
      },
    });
  });

  it("lets only the dashboard's origins PUT to presigned URLs: the API's endpoint, and dashboardOrigins", () => {
    const corsRules = (template: Template) =>
      only(resources(template, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('DataBucket')))[1].Properties
        .CorsConfiguration.CorsRules;
    const [restApiId] = only(resources(dev, 'AWS::ApiGateway::RestApi'));
    const apiOrigin = {
      'Fn::Join': [
        '',
        [
          'https://',
          { Ref: restApiId },
          '.execute-api.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
        ],
      ],
    };
    const rule = { AllowedMethods: ['PUT'], AllowedHeaders: ['Content-Type'], MaxAge: 3000 };
    expect(corsRules(dev)).toEqual([{ ...rule, AllowedOrigins: [apiOrigin] }]);
    expect(corsRules(prod)).toEqual([{ ...rule, AllowedOrigins: [apiOrigin, 'https://api.example.com'] }]);
  });

  it.each(['http://api.example.com', 'https://api.example.com/', 'https://api.example.com/v1', '*'])(
    'refuses dashboardOrigins %s at synth',
    (origin) => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      expect(
        () => new PromptopsStack(app, 'bad-origin', { stage: 'dev', dashboardOrigins: [origin] }),
      ).toThrow(/dashboardOrigins must be https origins/);
    },
  );

  it('denies every request to the bucket that is not over TLS', () => {
    dev.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('functions', () => {
  it('builds one function per route, the authorizer, one per worker, schedule and change consumer, nothing else', () => {
    dev.resourceCountIs('AWS::Lambda::Function', FUNCTION_COUNT);
    for (const route of ROUTES) functionByDescription(dev, routeLabel(route));
  });

  it('gives every route function the house runtime, its sizing and the env names of config.ts', () => {
    for (const route of ROUTES) {
      const [, fn] = functionByDescription(dev, routeLabel(route));
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: route.memoryMb ?? 256,
        Timeout: route.timeoutSeconds ?? 10,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
      const env = fn.Properties.Environment.Variables;
      expect(env).toMatchObject({
        [ENV.tableName]: { Ref: expect.stringMatching(/^DataTable/) },
        [ENV.bucketName]: { Ref: expect.stringMatching(/^DataBucket/) },
        [ENV.eventBusName]: { Ref: expect.stringMatching(/^EventsBus/) },
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'promptops',
      });
      const queueEnv = Object.keys(env).filter((name) => name.startsWith('QUEUE_URL_'));
      expect(queueEnv.sort()).toEqual((route.queues ?? []).map(queueUrlEnv).sort());
    }
  });

  it('sets the settings a route declares on its function, and on no other', () => {
    for (const route of ROUTES) {
      const [, fn] = functionByDescription(dev, routeLabel(route));
      const env = fn.Properties.Environment.Variables;
      for (const [name, value] of Object.entries(route.environment ?? {})) expect(env[name]).toBe(value);
    }
    const readers = ROUTES.filter((route) => route.environment && PROMPT_CACHE_TTL_ENV in route.environment);
    expect(readers.map(routeLabel)).toEqual([
      'GET /prompt-templates/{identifier}',
      'POST /prompt-templates/{identifier}',
    ]);
    const withTtl = resources(dev, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.[PROMPT_CACHE_TTL_ENV] !== undefined,
    );
    expect(withTtl.map(([, fn]) => fn.Properties.Description)).toEqual(readers.map(routeLabel));
  });

  it.each(['GET', 'POST'])(
    'gives the prompt %s function its cache TTL: the default, or promptCacheTtlSeconds',
    (method) => {
      const ttl = (template: Template) =>
        functionByDescription(template, `${method} /prompt-templates/{identifier}`)[1].Properties.Environment
          .Variables[PROMPT_CACHE_TTL_ENV];
      expect(ttl(dev)).toBe(String(DEFAULT_PROMPT_CACHE_TTL_SECONDS));
      expect(ttl(prod)).toBe('5');
    },
  );

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, 1e21])(
    'refuses promptCacheTtlSeconds %s at synth',
    (promptCacheTtlSeconds) => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      expect(() => new PromptopsStack(app, 'bad-ttl', { stage: 'dev', promptCacheTtlSeconds })).toThrow(
        /promptCacheTtlSeconds must be a number of seconds >= 0/,
      );
    },
  );

  it('gives each function an explicit log group with a retention', () => {
    const logGroups = resources(dev, 'AWS::Logs::LogGroup');
    for (const [, fn] of resources(dev, 'AWS::Lambda::Function')) {
      const [, logGroup] = only(logGroups.filter(([id]) => id === fn.Properties.LoggingConfig.LogGroup.Ref));
      expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('lets each function write logs to its own log group only, with no AWS managed policy', () => {
    const roles = new Map(resources(dev, 'AWS::IAM::Role'));
    for (const [id, fn] of resources(dev, 'AWS::Lambda::Function')) {
      const role = roles.get(fn.Properties.Role['Fn::GetAtt'][0]);
      expect(role?.Properties.ManagedPolicyArns ?? []).toEqual([]);
      const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
      const logStatements = roleStatements(dev)
        .filter(([role]) => role === roleId)
        .map(([, statement]) => statement)
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('logs:')));
      expect(logStatements, id).toEqual([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] },
        },
      ]);
    }
  });

  it('grants nothing on Resource * but the calls that take no resource (X-Ray; ListStreams for a stream reader)', () => {
    // cdk-nag's IAM5[Resource::*] is acknowledged on every function for X-Ray: this catches the rest.
    for (const template of [dev, prod, jobs]) {
      const onStar = roleStatements(template).filter(([, statement]) =>
        [statement.Resource].flat().includes('*'),
      );
      expect(onStar.length).toBeGreaterThan(0); // X-Ray, on every function
      for (const [, statement] of onStar) {
        const actions = [statement.Action].flat().sort();
        if (actions.includes('dynamodb:ListStreams')) expect(actions).toEqual(['dynamodb:ListStreams']);
        else expect(actions).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      }
    }
  });

  it('grants read-only routes no table writes, writing routes writes, and rows without table access none', () => {
    for (const route of ROUTES) {
      const [id] = functionByDescription(dev, routeLabel(route));
      const actions = actionsOf(dev, id);
      if (!route.table) {
        expect(
          actions.filter((action) => action.startsWith('dynamodb:')),
          routeLabel(route),
        ).toEqual([]);
        continue;
      }
      expect(actions).toContain('dynamodb:GetItem');
      if (route.table === 'read')
        for (const write of TABLE_WRITE_ACTIONS) expect(actions).not.toContain(write);
      else expect(actions).toEqual(expect.arrayContaining(TABLE_WRITE_ACTIONS));
    }
  });

  it('never grants a Scan, and grants the item operations on the table and every index', () => {
    const statements = roleStatements(dev);
    expect(statements.length).toBeGreaterThan(0);
    for (const [, statement] of statements) {
      const actions = [statement.Action].flat();
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions.some((action) => action.startsWith('dynamodb:*'))).toBe(false);
      if (actions.includes('dynamodb:Query'))
        expect(JSON.stringify(statement.Resource)).toContain('/index/*');
    }
  });

  it('names the API per stage, so each stage has its own 5xx metric', () => {
    dev.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'promptops-dev' });
    prod.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'promptops-prod' });
    dev.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5XXError',
      Dimensions: [{ Name: 'ApiName', Value: 'promptops-dev' }],
    });
  });

  it('grants bucket, queue and bus access only where the route says so', () => {
    for (const route of ROUTES) {
      const [id] = functionByDescription(dev, routeLabel(route));
      const actions = actionsOf(dev, id);
      expect(actions.includes('s3:GetObject*')).toBe(route.bucket !== undefined);
      expect(actions.includes('s3:PutObject')).toBe(route.bucket === 'write');
      expect(actions.includes('s3:DeleteObject*')).toBe(route.bucket === 'write');
      expect(actions.includes('sqs:SendMessage')).toBe((route.queues ?? []).length > 0);
      expect(actions.includes('events:PutEvents')).toBe(route.events === true);
    }
  });
});

describe('stack size', () => {
  it(`keeps every stack, root and nested, at ${STACK_RESOURCE_BUDGET} resources or fewer`, () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const prodStack = new PromptopsStack(app, 'size-prod', { stage: 'prod', alarmEmail: 'ops@example.com' });
    const counts = [devStack, prodStack].flatMap(stackSizes);
    const over = counts.filter(({ resources }) => resources > STACK_RESOURCE_BUDGET);
    // The message lists every stack's count: split a route group, or move a part into a nested stack.
    expect(over, `resources per stack: ${JSON.stringify(counts)}`).toEqual([]);
  });

  it('keeps the logical ids of the table, the buckets, the master key and the bus in the root stack', () => {
    const root = Template.fromStack(devStack);
    const kept = Object.fromEntries(
      Object.entries(root.toJSON().Resources as Record<string, Resource>)
        .filter(([, resource]) =>
          [
            'AWS::DynamoDB::Table',
            'AWS::S3::Bucket',
            'AWS::SecretsManager::Secret',
            'AWS::Events::EventBus',
          ].includes(resource.Type),
        )
        .map(([id, resource]) => [id, resource.Type]),
    );
    // A new logical id would make CloudFormation create a new, empty table or bucket (and a new key).
    expect(kept).toEqual({
      DataTableFDBAD0F2: 'AWS::DynamoDB::Table',
      DataAccessLogsC0C25EE4: 'AWS::S3::Bucket',
      DataBucketE6B0FAA8: 'AWS::S3::Bucket',
      DataMasterKeyB529036F: 'AWS::SecretsManager::Secret',
      DataProviderCredentials575A5B16: 'AWS::SecretsManager::Secret',
      EventsBus45DE4339: 'AWS::Events::EventBus',
    });
  });

  it("puts each route's function, invoke permission and alarm in its group's nested stack, nothing stateful", () => {
    for (const [group, rows] of Object.entries(ROUTE_GROUPS)) {
      const nested = devStack.http.routeStacks.get(group);
      if (rows.length === 0) {
        expect(nested).toBeUndefined();
        continue;
      }
      expect(nested?.node.id).toBe(routeGroupStackId(group));
      const template = Template.fromStack(nested!);
      const types = new Set(
        Object.values(template.toJSON().Resources as Record<string, Resource>).map(({ Type }) => Type),
      );
      expect([...types].sort()).toEqual([
        'AWS::CloudWatch::Alarm',
        'AWS::IAM::Role',
        'AWS::Lambda::Function',
        'AWS::Lambda::Permission',
        'AWS::Logs::LogGroup',
      ]);
      const functions = resources(template, 'AWS::Lambda::Function').map(
        ([, fn]) => fn.Properties.Description,
      );
      expect(functions.sort()).toEqual(rows.map(routeLabel).sort());
      template.resourceCountIs('AWS::Lambda::Permission', rows.length);
      template.resourceCountIs('AWS::CloudWatch::Alarm', rows.length);
    }
    const root = Template.fromStack(devStack);
    for (const route of ROUTES) {
      const inRoot = resources(root, 'AWS::Lambda::Function').filter(
        ([, fn]) => fn.Properties.Description === routeLabel(route),
      );
      expect(inRoot).toEqual([]);
    }
  });

  it('puts every worker, schedule and change consumer, with its alarms, in the Workers stack; the job queues stay in the root', () => {
    expect(devStack.workers.node.id).toBe(WORKERS_STACK_ID);
    const workers = Template.fromStack(devStack.workers);
    const descriptions = resources(workers, 'AWS::Lambda::Function').map(
      ([, fn]) => fn.Properties.Description,
    );
    expect(descriptions.sort()).toEqual(
      [
        ...Object.keys(JOB_QUEUES).map((name) => `worker for ${name}`),
        ...Object.entries(SCHEDULES).map(([name, def]) => `schedule ${name}: ${def.description}`),
        ...Object.keys(CHANGE_CONSUMERS).map((name) => `change consumer ${name}`),
      ].sort(),
    );
    // Only the dead-letter queues of schedules and change consumers: no job queue holds messages here.
    workers.resourceCountIs(
      'AWS::SQS::Queue',
      Object.keys(SCHEDULES).length + Object.keys(CHANGE_CONSUMERS).length,
    );
    workers.resourceCountIs(
      'AWS::Lambda::EventSourceMapping',
      Object.keys(JOB_QUEUES).length + Object.keys(CHANGE_CONSUMERS).length,
    );
    const root = Template.fromStack(devStack);
    expect(resources(root, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Description)).toEqual([
      devStack.http.authorizerFunction.description,
    ]);
    root.resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
    // The root keeps the authorizer's, the API's and the bus rules' alarms; the workers' moved with them.
    const rootAlarms = resources(root, 'AWS::CloudWatch::Alarm').map(
      ([, alarm]) => alarm.Properties.Namespace,
    );
    expect(rootAlarms.sort()).toEqual(
      ['AWS/ApiGateway', 'AWS/Lambda', ...devStack.events.rules.map(() => 'AWS/SQS')].sort(),
    );
    // Same construct paths as before the split, so the same logical ids: a deploy keeps each queue,
    // its URL and its messages.
    const queueIds = resources(root, 'AWS::SQS::Queue').map(([id]) => id);
    for (const name of Object.keys(JOB_QUEUES)) {
      for (const part of ['Queue', 'DeadLetterQueue']) {
        expect(queueIds.filter((id) => id.startsWith(`Jobs${pascalCase(name)}${part}`))).toHaveLength(1);
      }
    }
  });

  it('lets API Gateway invoke a route function only for its method and path on stage v1', () => {
    const [apiId] = only(resources(dev, 'AWS::ApiGateway::RestApi'));
    for (const route of ROUTES) {
      const [functionId] = functionByDescription(dev, routeLabel(route));
      const [, permission] = only(
        resources(dev, 'AWS::Lambda::Permission').filter(
          ([, p]) =>
            JSON.stringify(p.Properties.FunctionName) ===
            JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        ),
      );
      expect(permission.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
      });
      const source = JSON.stringify(permission.Properties.SourceArn);
      expect(source).toContain(JSON.stringify({ Ref: apiId }));
      expect(source).toContain(`/v1/${route.method}${route.path.replace(/\{[^}]*\}/g, '*')}"`);
    }
  });
});

describe('API', () => {
  it('is a regional REST API with a traced, throttled v1 stage', () => {
    dev.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
    dev.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: Match.anyValue(),
          ThrottlingBurstLimit: Match.anyValue(),
        }),
      ]),
    });
  });

  it('hands multipart uploads and OTLP protobuf over as bytes and answers ZIP archives as bytes (binary media types)', () => {
    dev.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: Match.arrayEquals([
        'multipart/form-data',
        'application/zip',
        'application/x-protobuf',
        'text/html',
        'text/css',
      ]),
    });
  });

  it('writes JSON access logs that carry no request header, so never the API key', () => {
    const [, stage] = only(resources(dev, 'AWS::ApiGateway::Stage'));
    const { DestinationArn, Format } = stage.Properties.AccessLogSetting;
    expect(DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpAccessLogs/), 'Arn'] });
    expect(Format).not.toMatch(/api-?key|header/i);
    // The format is itself JSON (cdk-nag's structured-logging rule parses it): every value is quoted.
    expect(JSON.parse(Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      errorType: '$context.error.responseType',
    });
  });

  it('logs execution errors at ERROR level, never request or response bodies', () => {
    const [apiId] = only(resources(dev, 'AWS::ApiGateway::RestApi'));
    dev.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, '/v1']] },
      RetentionInDays: 30,
    });
    for (const template of [dev, prod]) {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            LoggingLevel: 'ERROR',
            DataTraceEnabled: false,
          }),
        ]),
      });
    }
  });

  it('authorizes with the key authorizer: X-API-KEY header, cached for AUTHORIZER_CACHE_TTL_SECONDS', () => {
    dev.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: `method.request.header.${API_KEY_HEADER}`,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
    const [id] = functionByDescription(dev, 'API key authorizer');
    const actions = actionsOf(dev, id);
    expect(actions).toContain('dynamodb:GetItem');
    for (const write of TABLE_WRITE_ACTIONS) expect(actions).not.toContain(write);
    expect(actions.some((action) => action.startsWith('s3:') || action.startsWith('sqs:'))).toBe(false);
  });

  it('puts every route behind the authorizer, except the body-key, Basic-auth and dashboard-file routes, which have none', () => {
    const [authorizerId] = only(resources(dev, 'AWS::ApiGateway::Authorizer'));
    const methods = resources(dev, 'AWS::ApiGateway::Method').filter(
      ([, method]) => method.Properties.Integration.Type !== 'MOCK',
    );
    expect(methods.map(([, method]) => method.Properties.HttpMethod).sort()).toEqual(
      ROUTES.map((route) => route.method).sort(),
    );
    for (const route of ROUTES) {
      const [functionId] = functionByDescription(dev, `${route.method} ${route.path}`);
      const method = methods.find(([, { Properties }]) =>
        JSON.stringify(Properties.Integration?.Uri ?? '').includes(`"${functionId}"`),
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      const properties = method![1].Properties;
      expect(properties.Integration).toMatchObject({ Type: 'AWS_PROXY' });
      if (route.auth === 'body' || route.auth === 'basic' || route.site) {
        expect(properties.AuthorizationType, route.path).toBe('NONE');
        expect(properties.AuthorizerId, route.path).toBeUndefined();
      } else {
        expect(properties).toMatchObject({
          AuthorizationType: 'CUSTOM',
          AuthorizerId: { Ref: authorizerId },
        });
      }
    }
    expect(ROUTES.filter((route) => route.auth === 'body').map((route) => route.path)).toEqual(
      expect.arrayContaining(['/track-request', '/library-track-metadata', '/create-group']),
    );
  });

  it('publishes the OpenAPI document without a key at GET /openapi.json, from a function with no grant', () => {
    const [route] = ROUTES.filter((row) => row.site === 'openapi');
    expect(route).toMatchObject({
      method: 'GET',
      path: '/openapi.json',
      handler: 'functions/http/openapi-document.ts',
    });
    expect(route!.table).toBeUndefined();
    expect(ROUTE_GROUPS.ui).toContain(route);
    const [functionId] = functionByDescription(dev, 'GET /openapi.json');
    expect(
      actionsOf(dev, functionId).filter(
        (action) => !action.startsWith('logs:') && !action.startsWith('xray:'),
      ),
    ).toEqual([]);
    const [, method] = only(
      resources(dev, 'AWS::ApiGateway::Method').filter(([, m]) =>
        JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(`"${functionId}"`),
      ),
    );
    expect(method.Properties).toMatchObject({
      HttpMethod: 'GET',
      AuthorizationType: 'NONE',
      Integration: { Type: 'AWS_PROXY' },
    });
    expect(method.Properties.AuthorizerId).toBeUndefined();
    // No Mock integration holds the document any more (API Gateway caps a mapping template at 300 KB).
    const mocks = resources(dev, 'AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.Integration.Type === 'MOCK',
    );
    for (const [, mock] of mocks) {
      expect(mock.Properties.Integration.IntegrationResponses[0].StatusCode).toBe('302');
    }
  });

  it("puts the committed document, minified and served from the stage's path, in the function's asset", () => {
    const output = mkdtempSync(join(tmpdir(), 'openapi-asset-'));
    try {
      // The very commands of the NodejsFunction's afterBundling hook (the price table's copy skips: no bundle here).
      for (const command of openApiLambdaBundling.commandHooks!.afterBundling(REPO_ROOT, output)) {
        execFileSync('bash', ['-c', command], { cwd: REPO_ROOT, stdio: 'pipe' });
      }
      const published = readFileSync(join(output, OPENAPI_ASSET_FILE), 'utf8');
      expect(published).not.toContain('\n');
      const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
      expect(JSON.parse(published)).toEqual({
        ...committed,
        servers: [{ url: '/v1', description: expect.any(String) }],
      });
    } finally {
      rmSync(output, { recursive: true, force: true });
    }
  });

  it('serves the dashboard: GET /ui/{proxy+} with no authorizer and no table grant, its files in the asset', () => {
    const [route] = ROUTES.filter((row) => row.site === 'dashboard');
    expect(route).toMatchObject({
      method: 'GET',
      path: '/ui/{proxy+}',
      handler: 'functions/http/ui-assets.ts',
    });
    expect(route!.table).toBeUndefined();
    const [functionId] = functionByDescription(dev, 'GET /ui/{proxy+}');
    expect(
      actionsOf(dev, functionId).filter(
        (action) => !action.startsWith('logs:') && !action.startsWith('xray:'),
      ),
    ).toEqual([]);
    const [, method] = only(
      resources(dev, 'AWS::ApiGateway::Method').filter(([, m]) =>
        JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(`"${functionId}"`),
      ),
    );
    expect(method.Properties).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE' });
    expect(method.Properties.AuthorizerId).toBeUndefined();
    // Its CSP's connect-src names the origin of presigned URLs: the bucket's regional endpoint.
    const [bucketId] = only(resources(dev, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('DataBucket')));
    const uploadOrigins = resources(dev, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.[ENV.uploadOrigin] !== undefined)
      .map(([id, fn]) => [id, fn.Properties.Environment.Variables[ENV.uploadOrigin]]);
    expect(uploadOrigins).toEqual([
      [functionId, { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] }]] }],
    ]);
    // The asset gets the built dashboard beside index.mjs: ui/build.ts writes it there after bundling.
    expect(siteLambdaBundling.commandHooks?.afterBundling('/asset-input', '/asset-output')).toContain(
      "'/asset-input/node_modules/.bin/tsx' '/asset-input/ui/build.ts' '/asset-output/ui'",
    );
  });

  it('redirects GET / and GET /ui to the dashboard from API Gateway, keeping the mount path, with the security headers', () => {
    const resourceIds = new Map(
      resources(dev, 'AWS::ApiGateway::Resource').map(([id, r]) => [id, r.Properties.PathPart as string]),
    );
    const redirects = resources(dev, 'AWS::ApiGateway::Method').filter(
      ([, m]) =>
        m.Properties.Integration.Type === 'MOCK' &&
        m.Properties.Integration.IntegrationResponses[0].StatusCode === '302',
    );
    expect(
      redirects
        .map(([, m]) => (m.Properties.ResourceId.Ref ? resourceIds.get(m.Properties.ResourceId.Ref) : '/'))
        .sort(),
    ).toEqual(['/', 'ui']);
    for (const [, method] of redirects) {
      expect(method.Properties).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE' });
      const template: string =
        method.Properties.Integration.IntegrationResponses[0].ResponseTemplates['application/json'];
      expect(template).toContain('#set($context.responseOverride.header.Location = "$path/ui/requests")');
      expect(template).toContain(
        `#set($context.responseOverride.header.Content-Security-Policy = "${CONTENT_SECURITY_POLICY}")`,
      );
      expect(template).toContain('#set($context.responseOverride.header.Referrer-Policy = "no-referrer")');
    }
  });

  it("rewrites API Gateway's own errors to the service's JSON error body", () => {
    const byType = new Map(
      resources(dev, 'AWS::ApiGateway::GatewayResponse').map(([, { Properties }]) => [
        Properties.ResponseType,
        Properties,
      ]),
    );
    const body = (type: string, contextMessage = 'from API Gateway') => {
      const response = byType.get(type);
      expect(response?.ResponseParameters).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
      });
      const template: string = response.ResponseTemplates['application/json'];
      return JSON.parse(template.replaceAll('$context.error.messageString', JSON.stringify(contextMessage)));
    };
    const status = (type: string) => byType.get(type)?.StatusCode;

    expect(status('UNAUTHORIZED')).toBe('401');
    expect(body('UNAUTHORIZED')).toEqual({
      success: false,
      message: 'Missing API key',
      error: 'unauthorized',
    });
    expect(status('ACCESS_DENIED')).toBe('401');
    expect(body('ACCESS_DENIED')).toEqual({
      success: false,
      message: 'Invalid API key',
      error: 'unauthorized',
    });
    expect(status('THROTTLED')).toBe('429');
    expect(body('THROTTLED')).toMatchObject({ success: false, error: 'throttled' });
    expect(status('REQUEST_TOO_LARGE')).toBe('413');
    expect(body('REQUEST_TOO_LARGE')).toMatchObject({ success: false, error: 'payload_too_large' });
    expect(status('DEFAULT_5XX')).toBeUndefined();
    expect(body('DEFAULT_5XX')).toEqual({
      success: false,
      message: 'Internal error',
      error: 'internal_error',
    });
    expect(status('DEFAULT_4XX')).toBeUndefined();
    // API Gateway's message arrives pre-escaped: quotes and backslashes must survive as valid JSON.
    const tricky = 'Unsupported "Content-Type" \\ here';
    expect(body('DEFAULT_4XX', tricky)).toEqual({ success: false, message: tricky, error: 'bad_request' });
    expect(byType.size).toBe(Object.keys(GATEWAY_ERRORS).length);
    // The bodies are the table's, which the local gateway answers too (test/e2e/gateway-errors.test.ts).
    for (const gatewayError of Object.values(GATEWAY_ERRORS)) {
      expect(status(gatewayError.type)).toBe(
        'statusCode' in gatewayError ? String(gatewayError.statusCode) : undefined,
      );
      if (typeof gatewayError.message === 'string')
        expect(body(gatewayError.type)).toEqual(gatewayErrorBody(gatewayError));
    }
  });
});

describe('request size guard', () => {
  const regex = new RegExp(contentLengthOverRegex(MAX_REQUEST_BODY_BYTES));

  it.each([
    ['0', false],
    ['1', false],
    [String(MAX_REQUEST_BODY_BYTES - 1), false],
    [String(MAX_REQUEST_BODY_BYTES), false],
    [`000${MAX_REQUEST_BODY_BYTES}`, false],
    [String(MAX_REQUEST_BODY_BYTES + 1), true],
    [`0${MAX_REQUEST_BODY_BYTES + 1}`, true],
    ['6299999', true],
    ['6300000', true],
    ['9999999', true],
    ['10000000', true],
    ['99999999999', true],
    ['', false],
    ['abc', false],
    ['-7000000', false],
    ['7000000 ', false],
  ])('content-length %j over the limit: %s', (value, over) => {
    expect(regex.test(value)).toBe(over);
  });

  it('matches exactly the numbers above the limit, for any limit', () => {
    for (const limit of [0, 1, 9, 10, 99, 100, 109, 190, 199, 200, 909, 1000]) {
      const pattern = new RegExp(contentLengthOverRegex(limit));
      const wrong = Array.from({ length: 2101 }, (_, n) => n).filter(
        (n) => pattern.test(String(n)) !== n > limit,
      );
      expect(wrong, `limit ${limit}`).toEqual([]);
    }
  });

  it('uses no capturing group (AWS WAF rejects them)', () => {
    expect(contentLengthOverRegex(MAX_REQUEST_BODY_BYTES)).not.toContain('(');
  });

  it('attaches a regional web ACL to the stage that answers 413 in the error shape', () => {
    const [aclId, acl] = only(resources(dev, 'AWS::WAFv2::WebACL'));
    expect(acl.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const rule = only(acl.Properties.Rules as Resource['Properties'][]);
    expect(rule.Statement.RegexMatchStatement).toEqual({
      FieldToMatch: { SingleHeader: { Name: 'content-length' } },
      RegexString: contentLengthOverRegex(MAX_REQUEST_BODY_BYTES),
      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
    });
    const { ResponseCode, CustomResponseBodyKey } = rule.Action.Block.CustomResponse;
    expect(ResponseCode).toBe(413);
    const responseBody = acl.Properties.CustomResponseBodies[CustomResponseBodyKey];
    expect(responseBody.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(responseBody.Content)).toMatchObject({ success: false, error: 'payload_too_large' });
    // The local gateway answers the same body (test/e2e/gateway-errors.test.ts).
    expect(JSON.parse(responseBody.Content)).toEqual(bodyTooLarge(MAX_REQUEST_BODY_BYTES));

    const [, association] = only(resources(dev, 'AWS::WAFv2::WebACLAssociation'));
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const [stageId] = only(resources(dev, 'AWS::ApiGateway::Stage'));
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
  });

  it('is left out when requestSizeGuard is false', () => {
    prod.resourceCountIs('AWS::WAFv2::WebACL', 0);
    prod.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });
});

describe('events', () => {
  it('creates the promptops-<stage> bus and archives every promptops event to a log group', () => {
    dev.hasResourceProperties('AWS::Events::EventBus', { Name: 'promptops-dev' });
    const [ruleId, rule] = only(withIdPrefix(dev, 'AWS::Events::Rule', 'EventsArchiveRule'));
    expect(rule.Properties.EventPattern).toEqual({ source: ['promptops'] });
    const [target] = rule.Properties.Targets;
    expect(JSON.stringify(target.Arn)).toContain(':log-group:');
    // Undeliverable events go to a dead-letter queue that only this rule may write to, and alarm.
    const [dlqId] = only(withIdPrefix(dev, 'AWS::SQS::Queue', 'EventsArchiveTargetDeadLetterQueue'));
    expect(target).toMatchObject({
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
    });
    expectOnlyRuleMaySend(dev, dlqId, ruleId);
    expectDeadLetterAlarm(dev, dlqId);
    dev.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/events/promptops-dev' });
    // The log group's resource policy lets EventBridge write to it (a native resource, no custom resource).
    const [, policy] = only(resources(dev, 'AWS::Logs::ResourcePolicy'));
    const document = JSON.stringify(policy.Properties.PolicyDocument);
    for (const needle of ['events.amazonaws.com', 'logs:PutLogEvents', 'logs:CreateLogStream']) {
      expect(document).toContain(needle);
    }
  });
});

describe('change feed', () => {
  it("streams the table's changes with both images", () => {
    const [, table] = only(resources(dev, 'AWS::DynamoDB::Table'));
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('feeds each change consumer its item kinds from the stream, in batches, retried and bisected, with a DLQ', () => {
    const [tableId] = only(resources(dev, 'AWS::DynamoDB::Table'));
    for (const [name, def] of Object.entries(CHANGE_CONSUMERS)) {
      const [fnId, fn] = functionByDescription(dev, `change consumer ${name}`);
      expect(fn.Properties).toMatchObject({ MemorySize: def.memoryMb, Timeout: def.timeoutSeconds });
      const [, mapping] = only(
        resources(dev, 'AWS::Lambda::EventSourceMapping').filter(
          ([, m]) => m.Properties.FunctionName?.Ref === fnId,
        ),
      );
      const [dlqId] = only(
        withIdPrefix(dev, 'AWS::SQS::Queue', `ChangeConsumers${pascalCase(name)}DeadLetterQueue`),
      );
      expect(mapping.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: def.batchSize,
        MaximumBatchingWindowInSeconds: def.batchingWindowSeconds,
        MaximumRetryAttempts: def.maxRetries,
        BisectBatchOnFunctionError: def.bisectOnError,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ParallelizationFactor: 1,
        TumblingWindowInSeconds: 1,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
      });
      expect(
        mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern)),
      ).toEqual([{ dynamodb: { Keys: { [TABLE_KEYS.sort]: { S: [...def.sortKeys] } } } }]);
      const actions = actionsOf(dev, fnId);
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'sqs:SendMessage']),
      );
      expect(actions.includes('dynamodb:PutItem')).toBe(def.table === 'write');
      // An alarm on its dead letters and one on its lag.
      const alarms = resources(dev, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
      expect(
        alarms.some(
          (a) =>
            a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
            a.Dimensions?.[0]?.Value?.['Fn::GetAtt']?.[0] === dlqId,
        ),
      ).toBe(true);
      expect(
        alarms.some((a) => a.MetricName === 'IteratorAge' && a.Dimensions?.[0]?.Value?.Ref === fnId),
      ).toBe(true);
    }
  });
});

describe('job queues', () => {
  it('builds a queue, a DLQ and an event source per JOB_QUEUES row (the real table)', () => {
    const count = Object.keys(JOB_QUEUES).length;
    expect(withIdPrefix(dev, 'AWS::SQS::Queue', 'Jobs')).toHaveLength(2 * count);
    dev.resourceCountIs('AWS::Lambda::EventSourceMapping', count + Object.keys(CHANGE_CONSUMERS).length);
  });

  it('gives a queue its DLQ, bounded receives, SSE and six times the worker timeout', () => {
    const def = FAKE_QUEUES['fake-jobs']!;
    const [, main] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', 'JobsFakeJobsQueue'));
    const [dlqId, dlq] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', 'JobsFakeJobsDeadLetterQueue'));
    expect(main.Properties).toMatchObject({
      VisibilityTimeout: 6 * def.timeoutSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: def.maxReceiveCount,
      },
    });
    expect(dlq.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('feeds the worker in batches that report partial failures', () => {
    const def = FAKE_QUEUES['fake-jobs']!;
    const [workerId, worker] = functionByDescription(jobs, 'worker for fake-jobs');
    expect(worker.Properties).toMatchObject({ MemorySize: def.memoryMb, Timeout: def.timeoutSeconds });
    jobs.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      BatchSize: def.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const actions = actionsOf(jobs, workerId);
    expect(actions).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']),
    );
    expect(actions).toContain('dynamodb:PutItem');
    expect(actions).not.toContain('s3:PutObject');
  });

  it('hands senders the queue URL under queueUrlEnv(name) and the right to send, nothing more', () => {
    const [routeId, route] = functionByDescription(jobs, 'POST /fake');
    const [mainId] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', 'JobsFakeJobsQueue'));
    expect(route.Properties.Environment.Variables[queueUrlEnv('fake-jobs')]).toEqual({ Ref: mainId });
    const actions = actionsOf(jobs, routeId);
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('sqs:ReceiveMessage');
    expect(actions).toContain('events:PutEvents');
  });

  it("hands each worker its own queue's URL (to delay its messages), not the right to send to it", () => {
    const [workerId, worker] = functionByDescription(jobs, 'worker for fake-delivery');
    const [mainId] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', 'JobsFakeDeliveryQueue'));
    expect(worker.Properties.Environment.Variables[queueUrlEnv('fake-delivery')]).toEqual({ Ref: mainId });
    const actions = actionsOf(jobs, workerId);
    expect(actions).toContain('sqs:ChangeMessageVisibility');
    expect(actions).not.toContain('sqs:SendMessage');
  });

  it('alarms on any message in the dead-letter queue', () => {
    for (const name of Object.keys(FAKE_QUEUES)) {
      const [dlqId] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', `Jobs${pascalCase(name)}DeadLetterQueue`));
      expectDeadLetterAlarm(jobs, dlqId);
    }
  });

  it('caps concurrent batches at maxConcurrency, 1 raised to AWS minimum of 2, none when absent', () => {
    const concurrency = (name: string) => {
      const [workerId] = functionByDescription(jobs, `worker for ${name}`);
      const [, mapping] = only(
        resources(jobs, 'AWS::Lambda::EventSourceMapping').filter(
          ([, esm]) => esm.Properties.FunctionName.Ref === workerId,
        ),
      );
      return mapping.Properties.ScalingConfig?.MaximumConcurrency;
    };
    expect(concurrency('fake-jobs')).toBeUndefined();
    expect(concurrency('fake-fanout')).toBe(2);
    expect(concurrency('fake-delivery')).toBe(5);
  });

  it.each([0, -1, 1.5, 1001, Number.NaN])('refuses maxConcurrency %s at synth', (maxConcurrency) => {
    expect(() => eventSourceConcurrency('bad-jobs', maxConcurrency)).toThrow(
      /Job queue bad-jobs: maxConcurrency must be a whole number from 1 to 1000/,
    );
  });

  it('refuses a row naming a queue that JOB_QUEUES lacks', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'bad');
    const shared = {
      table: new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } }),
      bucket: new Bucket(stack, 'Bucket'),
      eventBus: new EventBus(stack, 'Bus'),
      queues: new Map(),
      masterKey: new Secret(stack, 'MasterKey'),
      providerCredentials: new Secret(stack, 'ProviderCredentials'),
    };
    expect(
      () =>
        new ServiceFunction(stack, 'Route', {
          root: fakeRoot,
          entry: 'functions/fake-route.ts',
          description: 'POST /bad',
          access: { table: 'read', queues: ['missing-jobs'] },
          resources: shared,
          invocation: { kind: 'api' },
        }),
    ).toThrow(/unknown job queue "missing-jobs"/);
  });
});

describe('bus rules', () => {
  it('builds one rule per EVENT_RULES row on the project bus (the real table)', () => {
    const rules = resources(dev, 'AWS::Events::Rule').filter(([, rule]) => rule.Properties.EventBusName);
    expect(rules).toHaveLength(1 + Object.keys(EVENT_RULES).length);
  });

  it("sends a row's event types from the service (all of them when it names none) to its queue", () => {
    const pattern = (name: string) =>
      only(withIdPrefix(jobs, 'AWS::Events::Rule', `Events${pascalCase(name)}Rule`))[1].Properties;
    const [busId] = only(resources(jobs, 'AWS::Events::EventBus'));
    expect(pattern('fake-prompts')).toMatchObject({
      EventBusName: { Ref: busId },
      Description: 'prompt events to the fan-out',
      EventPattern: {
        source: ['promptops'],
        'detail-type': ['prompt_template_version_created', 'prompt_template_label_moved'],
      },
    });
    expect(pattern('fake-everything').EventPattern).toEqual({ source: ['promptops'] });
  });

  it.each(Object.entries(FAKE_RULES))(
    'gives rule %s a retried target with a dead-letter queue, and lets only it send to the queue',
    (name, def) => {
      const [ruleId, rule] = only(withIdPrefix(jobs, 'AWS::Events::Rule', `Events${pascalCase(name)}Rule`));
      const [queueId] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', `Jobs${pascalCase(def.queue)}Queue`));
      const [dlqId] = only(
        withIdPrefix(jobs, 'AWS::SQS::Queue', `Events${pascalCase(name)}RuleDeadLetterQueue`),
      );
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [queueId, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        }),
      ]);
      expectOnlyRuleMaySend(jobs, queueId, ruleId);
      expectOnlyRuleMaySend(jobs, dlqId, ruleId);
      expectDeadLetterAlarm(jobs, dlqId);
    },
  );

  it('refuses a row naming a queue that JOB_QUEUES lacks, or an empty list of event types', () => {
    const stack = new Stack(new App(), 'bad-rules');
    const events = new ProjectEvents(stack, 'Events', { stage: 'bad' });
    const queues = new Map([['known', new Queue(stack, 'Known')]]);
    expect(() => events.addQueueRules({ r: { queue: 'missing', description: 'x' } }, queues)).toThrow(
      /Event rule r: unknown job queue "missing"/,
    );
    expect(() =>
      events.addQueueRules({ e: { queue: 'known', eventTypes: [], description: 'x' } }, queues),
    ).toThrow(/Event rule e: eventTypes is empty/);
  });
});

describe('schedules', () => {
  it('builds one rule and one function per SCHEDULES row (the real table)', () => {
    const scheduled = resources(dev, 'AWS::Events::Rule').filter(
      ([, rule]) => rule.Properties.ScheduleExpression,
    );
    expect(scheduled).toHaveLength(Object.keys(SCHEDULES).length);
    for (const [name, def] of Object.entries(SCHEDULES)) {
      functionByDescription(dev, `schedule ${name}: ${def.description}`);
    }
  });

  it('runs the function at its rate, retried, with one dead-letter queue for the target and the function', () => {
    const def = FAKE_SCHEDULES['fake-sweep']!;
    const [fnId, fn] = functionByDescription(jobs, `schedule fake-sweep: ${def.description}`);
    const [dlqId] = only(withIdPrefix(jobs, 'AWS::SQS::Queue', 'SchedulesFakeSweepDeadLetterQueue'));
    const [, rule] = only(withIdPrefix(jobs, 'AWS::Events::Rule', 'SchedulesFakeSweepRule'));
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
    expect(rule.Properties.EventBusName).toBeUndefined();
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [fnId, 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 300 },
      }),
    ]);
    // A run that throws is retried by Lambda, then lands in the same queue (on-failure destination).
    expect(fn.Properties.Timeout).toBe(def.timeoutSeconds);
    jobs.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
    });
    expect(actionsOf(jobs, fnId)).toContain('sqs:SendMessage');
    expectDeadLetterAlarm(jobs, dlqId);
    jobs.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
    });
  });

  it('grants the scheduled function what its row declares', () => {
    const [fnId] = functionByDescription(jobs, 'schedule fake-sweep: fake sweep');
    const actions = actionsOf(jobs, fnId);
    expect(actions).toEqual(
      expect.arrayContaining([...TABLE_WRITE_ACTIONS, 'events:PutEvents', 'secretsmanager:GetSecretValue']),
    );
    expect(actions).not.toContain('s3:GetObject*');
  });

  it.each([0, 2.5, -5])('refuses everyMinutes %s at synth', (everyMinutes) => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'bad-schedule');
    const resources = {
      table: new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } }),
      bucket: new Bucket(stack, 'Bucket'),
      eventBus: new EventBus(stack, 'Bus'),
      queues: new Map(),
      masterKey: new Secret(stack, 'MasterKey'),
      providerCredentials: new Secret(stack, 'ProviderCredentials'),
    };
    const schedules = { bad: { ...FAKE_SCHEDULES['fake-sweep']!, everyMinutes } };
    expect(() => new Schedules(stack, 'Schedules', { root: fakeRoot, schedules, resources })).toThrow(
      /Schedule bad: everyMinutes must be a whole number >= 1/,
    );
  });
});

describe('master key', () => {
  it('is one generated 64-character secret without punctuation, kept on destroy', () => {
    for (const template of [dev, prod]) {
      const [, secret] = only(withIdPrefix(template, 'AWS::SecretsManager::Secret', 'DataMasterKey'));
      expect(secret.Properties.GenerateSecretString).toEqual({
        PasswordLength: 64,
        ExcludePunctuation: true,
      });
      expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('reaches exactly the functions whose row says masterKey, as MASTER_KEY_SECRET_ID with read access', () => {
    const [secretId] = only(withIdPrefix(dev, 'AWS::SecretsManager::Secret', 'DataMasterKey'));
    const [credentialsId] = only(withIdPrefix(dev, 'AWS::SecretsManager::Secret', 'DataProviderCredentials'));
    for (const route of ROUTES) {
      const [id, fn] = functionByDescription(dev, routeLabel(route));
      const env = fn.Properties.Environment.Variables;
      if (route.masterKey) expect(env[ENV.masterKeySecretId]).toEqual({ Ref: secretId });
      else expect(env[ENV.masterKeySecretId]).toBeUndefined();
      // A route that calls a provider (replay) reads the provider credentials too (tested below).
      expect(secretsReadBy(dev, id).filter((secret) => secret !== credentialsId)).toEqual(
        route.masterKey ? [secretId] : [],
      );
    }
    // The made-up rows: a worker and a schedule with masterKey, a worker without.
    const [fakeSecretId] = only(withIdPrefix(jobs, 'AWS::SecretsManager::Secret', 'MasterKey'));
    for (const [description, granted] of [
      ['worker for fake-fanout', true],
      ['schedule fake-sweep: fake sweep', true],
      ['worker for fake-delivery', false],
    ] as const) {
      const [id, fn] = functionByDescription(jobs, description);
      expect(fn.Properties.Environment.Variables[ENV.masterKeySecretId]).toEqual(
        granted ? { Ref: fakeSecretId } : undefined,
      );
      expect(secretsReadBy(jobs, id).includes(fakeSecretId)).toBe(granted);
    }
  });
});

/** The functions that call an LLM provider: workers of report columns, workflow nodes and replays, and the replay route. */
const LLM_WORKERS = [
  'POST /api/public/v2/requests/{request_id}/replay',
  `worker for ${REPLAY_QUEUE.name}`,
  `worker for ${REPLAY_BATCH_QUEUE.name}`,
  `worker for ${REPORT_ROWS_QUEUE.name}`,
  `worker for ${WORKFLOW_NODE_QUEUE.name}`,
].sort();

describe('provider credentials', () => {
  const workerOf = (template: Template) =>
    functionByDescription(template, `worker for ${WORKFLOW_NODE_QUEUE.name}`);

  it('is one secret created as {} (no keys, nothing secret in the template), kept on destroy', () => {
    for (const template of [dev, prod]) {
      const [, secret] = only(
        withIdPrefix(template, 'AWS::SecretsManager::Secret', 'DataProviderCredentials'),
      );
      expect(secret.Properties.SecretString).toBe('{}');
      expect(secret.Properties.GenerateSecretString).toBeUndefined();
      expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    const [secretId] = only(withIdPrefix(dev, 'AWS::SecretsManager::Secret', 'DataProviderCredentials'));
    expect(dev.toJSON().Outputs.ProviderCredentialsSecretArn.Value).toEqual({ Ref: secretId });
  });

  it('is read by the functions that call providers only, as PROVIDER_CREDENTIALS_SECRET_ID', () => {
    const [secretId] = only(withIdPrefix(dev, 'AWS::SecretsManager::Secret', 'DataProviderCredentials'));
    const readers = resources(dev, 'AWS::Lambda::Function')
      .filter(([id]) => secretsReadBy(dev, id).includes(secretId))
      .map(([, fn]) => fn.Properties.Description);
    expect([...readers].sort()).toEqual(LLM_WORKERS);
    const withEnv = resources(dev, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.[ENV.providerCredentialsSecretId] !== undefined,
    );
    expect(
      withEnv.map(([, fn]) => fn.Properties.Environment.Variables[ENV.providerCredentialsSecretId]),
    ).toEqual(LLM_WORKERS.map(() => ({ Ref: secretId })));
    expect(withEnv.map(([, fn]) => fn.Properties.Description).sort()).toEqual(LLM_WORKERS);
    // The keys themselves are in no function's environment.
    for (const [, fn] of resources(dev, 'AWS::Lambda::Function')) {
      const env = fn.Properties.Environment?.Variables ?? {};
      expect(env).not.toHaveProperty(ENV.openaiApiKey);
      expect(env).not.toHaveProperty(ENV.anthropicApiKey);
    }
    // A made-up worker that declares the flag gets its own stack's secret.
    const [fakeSecretId] = only(withIdPrefix(jobs, 'AWS::SecretsManager::Secret', 'ProviderCredentials'));
    const [id, fn] = functionByDescription(jobs, 'worker for fake-delivery');
    expect(fn.Properties.Environment.Variables[ENV.providerCredentialsSecretId]).toEqual({
      Ref: fakeSecretId,
    });
    expect(secretsReadBy(jobs, id)).toEqual([fakeSecretId]);
  });

  it("gives the functions that call providers the provider settings: the defaults, or the deployment's", () => {
    const settingsOf = (template: Template) => {
      const env = workerOf(template)[1].Properties.Environment.Variables;
      return [ENV.openaiBaseUrl, ENV.anthropicBaseUrl, ENV.providerTimeoutMs].map((name) => env[name]);
    };
    expect(settingsOf(dev)).toEqual(['https://api.openai.com/v1', 'https://api.anthropic.com', '120000']);
    expect(settingsOf(prod)).toEqual(['https://llm.example.com/v1', 'https://api.anthropic.com', '30000']);
    // On no other function.
    const readers = resources(prod, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.[ENV.providerTimeoutMs] !== undefined,
    );
    expect(readers.map(([, fn]) => fn.Properties.Description).sort()).toEqual(LLM_WORKERS);
  });

  it('gives made-up workers and schedules their declared settings, beside their own variables', () => {
    const envOf = (description: string) =>
      functionByDescription(jobs, description)[1].Properties.Environment.Variables;
    expect(envOf('worker for fake-delivery')).toMatchObject({
      FAKE_BASE_URL: 'https://default.example.com',
      FAKE_LIMIT: '7',
      [queueUrlEnv('fake-delivery')]: expect.anything(),
    });
    expect(envOf('schedule fake-sweep: fake sweep')).toMatchObject({ FAKE_SWEEP_AGE: '30' });
    expect(envOf('worker for fake-jobs')).not.toHaveProperty('FAKE_LIMIT');
  });

  it.each([
    [{ openaiBaseUrl: 'ftp://llm.example.com' }, /openaiBaseUrl must be an http\(s\) URL/],
    [{ anthropicBaseUrl: 'not a url' }, /anthropicBaseUrl must be an http\(s\) URL/],
    [{ providerTimeoutMs: 0 }, /providerTimeoutMs must be a whole number of milliseconds >= 1/],
    [{ providerTimeoutMs: 2.5 }, /providerTimeoutMs must be a whole number/],
  ])('refuses %o at synth', (props, message) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new PromptopsStack(app, 'bad-provider', { stage: 'dev', ...props })).toThrow(message);
  });
});

describe('bucket access logs', () => {
  it('logs every request to the bucket into a TLS-only, encrypted, expiring log bucket that is kept', () => {
    const [logsId, logs] = only(withIdPrefix(dev, 'AWS::S3::Bucket', 'DataAccessLogs'));
    const [, bucket] = only(withIdPrefix(dev, 'AWS::S3::Bucket', 'DataBucket'));
    expect(bucket.Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logsId },
      LogFilePrefix: 'service-bucket/',
    });
    expect(logs).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LifecycleConfiguration: {
          Rules: [expect.objectContaining({ ExpirationInDays: 90, Status: 'Enabled' })],
        },
      },
    });
    const [, policy] = only(
      resources(dev, 'AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === logsId),
    );
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' } }),
      ]),
    );
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the real stack, with or without the WAF guard and the alarm topic', () => {
    expect(findings.dev).toEqual([]);
    expect(findings.prod).toEqual([]);
  });

  it('finds nothing unacknowledged in the queues, rules and schedules built from made-up rows', () => {
    expect(findings.fakeRows).toEqual([]);
  });

  it('reports a resource nobody acknowledged', () => {
    const stack = new Stack(new App(), 'stray');
    new Queue(stack, 'Stray');
    expect(nagFindings(stack)).toEqual(
      expect.arrayContaining([
        'AwsSolutions-SQS3 at stray/Stray/Resource',
        'AwsSolutions-SQS4 at stray/Stray/Resource',
      ]),
    );
  });
});

describe('alarms and outputs', () => {
  it('alarms on every function error and on API 5xx', () => {
    const alarms = resources(dev, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const errorAlarms = alarms.filter(
      (alarm) => alarm.MetricName === 'Errors' && alarm.Namespace === 'AWS/Lambda',
    );
    expect(errorAlarms).toHaveLength(FUNCTION_COUNT);
    expect(
      alarms.filter((alarm) => alarm.MetricName === '5XXError' && alarm.Namespace === 'AWS/ApiGateway'),
    ).toHaveLength(1);
    expect(alarms.every((alarm) => alarm.AlarmActions === undefined)).toBe(true);
  });

  it('sends alarms to the email topic when an address is given; the topic takes only TLS publishers', () => {
    prod.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    const [topicId] = only(resources(prod, 'AWS::SNS::Topic'));
    prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    for (const [, alarm] of resources(prod, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    }
    dev.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it('outputs the API URL, table, bucket, bus, master key and provider credentials names, and nothing else', () => {
    expect(Object.keys(dev.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'BucketName',
      'EventBusName',
      'MasterKeySecretArn',
      'ProviderCredentialsSecretArn',
      'TableName',
    ]);
    dev.hasOutput('MasterKeySecretArn', { Value: { Ref: Match.stringLikeRegexp('^DataMasterKey') } });
    dev.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('^DataTable') } });
    dev.hasOutput('BucketName', { Value: { Ref: Match.stringLikeRegexp('^DataBucket') } });
    dev.hasOutput('EventBusName', { Value: { Ref: Match.stringLikeRegexp('^EventsBus') } });
    expect(JSON.stringify(dev.findOutputs('ApiUrl'))).toContain('.execute-api.');
  });
});

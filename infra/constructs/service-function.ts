import { join } from 'node:path';
import { type CfnResource, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { CfnTable, ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import {
  type AddToPrincipalPolicyResult,
  PolicyDocument,
  type PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, queueUrlEnv } from '#shared/platform/config.ts';
import { BUNDLE, bundlingOf } from '../bundling.ts';
import type { ResourceAccess } from '../route-types.ts';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../table-actions.ts';

/** The shared resources every function is wired to. */
export interface ServiceResources {
  table: ITable;
  bucket: IBucket;
  eventBus: IEventBus;
  /** Job queues by their JOB_QUEUES name. */
  queues: ReadonlyMap<string, IQueue>;
  /** The master-key secret, readable by rows that say `masterKey: true`. */
  masterKey: ISecret;
  /** The deployment's provider keys, readable by rows that say `providerCredentials: true`. */
  providerCredentials: ISecret;
}

/**
 * Who invokes the function, which decides where a failed invocation ends: API Gateway and SQS event
 * source mappings invoke synchronously (the caller sees the error; SQS redrives the message to the
 * queue's dead-letter queue; a DynamoDB stream's mapping, after its retries, sends the failed batch's
 * description to the mapping's on-failure destination), an EventBridge schedule invokes asynchronously, so the function's failed
 * runs, after `retryAttempts`, go to an on-failure destination: `deadLetterQueue`.
 */
export type Invocation =
  | { kind: 'api' }
  | { kind: 'queue' }
  | { kind: 'stream' }
  | { kind: 'schedule'; deadLetterQueue: IQueue; retryAttempts: number };

/**
 * A function's execution role that keeps every grant in the role's own inline policy (the role's
 * `Policies` property) instead of the separate `AWS::IAM::Policy` ("DefaultPolicy") a CDK role creates
 * for its first grant: the same statements on the same role, one CloudFormation resource fewer per
 * function. Both are inline policies of the role, under the same IAM size quota.
 */
export class FunctionRole extends Role {
  private readonly access: PolicyDocument;

  constructor(scope: Construct, id: string, description: string) {
    const access = new PolicyDocument();
    // No AWSLambdaBasicExecutionRole, which may create log groups and write to any log group of the
    // account: the function is granted writing to its own log group only.
    super(scope, id, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: description.slice(0, 1000),
      inlinePolicies: { access },
    });
    this.access = access;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.access.addStatements(statement);
    // Whatever must wait for the grant (an event source mapping) waits for the role, which holds it.
    return { statementAdded: true, policyDependable: this };
  }
}

export const DEFAULT_MEMORY_MB = 256;
export const DEFAULT_TIMEOUT_SECONDS = 10;
export const SERVICE_NAME = 'promptops';

export interface ServiceFunctionProps {
  /** Repository root: `entry` is relative to it and its `package-lock.json` anchors bundling. */
  root: string;
  /** Handler file relative to `root`, exporting `handler`. */
  entry: string;
  description: string;
  access: ResourceAccess;
  resources: ServiceResources;
  invocation: Invocation;
  memoryMb?: number;
  timeoutSeconds?: number;
  logRetention?: RetentionDays;
  /** Settings of this function, beside the resource names every function gets. */
  environment?: Readonly<Record<string, string>>;
}

/**
 * A NodejsFunction with the house defaults (Node.js 24 on ARM64, X-Ray, source maps, ESM bundle,
 * explicit log group with retention) and least-privilege grants derived from `access`: read-only table
 * rows get read-only grants, queues and the bus only when named. The function's environment carries the
 * resource names under the variable names of `shared/platform/config.ts`.
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly logGroup: LogGroup;
  /** What the function is for, e.g. `GET /api/public/v2/requests/{request_id}`. */
  readonly description: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { access, resources } = props;
    this.description = props.description;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const role = new FunctionRole(this, 'Role', props.description);
    this.logGroup.grantWrite(role);

    this.fn = new NodejsFunction(this, 'Function', {
      role,
      entry: join(props.root, props.entry),
      projectRoot: props.root,
      depsLockFilePath: join(props.root, 'package-lock.json'),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      bundling: bundlingOf(access),
      ...(props.invocation.kind === 'schedule' && {
        onFailure: new SqsDestination(props.invocation.deadLetterQueue),
        retryAttempts: props.invocation.retryAttempts,
      }),
      environment: {
        [ENV.tableName]: resources.table.tableName,
        [ENV.bucketName]: resources.bucket.bucketName,
        [ENV.eventBusName]: resources.eventBus.eventBusName,
        NODE_OPTIONS: BUNDLE.nodeOptions,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        ...props.environment,
      },
    });

    // Exactly the item operations the code uses (no Scan anywhere), on the table and its indexes.
    if (access.table)
      resources.table.grant(
        this.fn,
        ...(access.table === 'write' ? TABLE_WRITE_ACTIONS : TABLE_READ_ACTIONS),
      );

    if (access.bucket === 'write') resources.bucket.grantReadWrite(this.fn);
    else if (access.bucket === 'read') resources.bucket.grantRead(this.fn);

    for (const name of access.queues ?? []) {
      const queue = resources.queues.get(name);
      if (!queue) throw new Error(`${props.description}: unknown job queue "${name}" (not in JOB_QUEUES)`);
      queue.grantSendMessages(this.fn);
      this.fn.addEnvironment(queueUrlEnv(name), queue.queueUrl);
    }

    if (access.events) resources.eventBus.grantPutEventsTo(this.fn);

    if (access.masterKey) {
      resources.masterKey.grantRead(this.fn);
      this.fn.addEnvironment(ENV.masterKeySecretId, resources.masterKey.secretArn);
    }

    if (access.providerCredentials) {
      resources.providerCredentials.grantRead(this.fn);
      this.fn.addEnvironment(ENV.providerCredentialsSecretId, resources.providerCredentials.secretArn);
    }

    this.acknowledgeNagFindings(props);
  }

  /**
   * The cdk-nag findings every function of this kind has by design, acknowledged on this construct
   * with their reasons (docs/deployment.md, "cdk-nag"). Only the wildcards its own grants produce are
   * acknowledged, by their exact pattern, so a grant added by hand is still reported, except one on
   * `Resource::*`, which X-Ray's own grant already needs acknowledged (a CDK test reports that one).
   */
  private acknowledgeNagFindings({ access, resources, invocation }: ServiceFunctionProps): void {
    const acknowledge = (id: string, reason: string) => Validations.of(this).acknowledge({ id, reason });
    const arnOf = (resource: CfnTable | CfnBucket) => arnInFindings(this, resource);

    acknowledge(
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and xray:PutTelemetryRecords take no resource, so CDK grants them on *',
    );
    acknowledge(
      'Serverless-LambdaStarPermissions',
      "The role's only statement on Resource * is X-Ray's (above); the rule checks the role's inline policy, where the grants are, and a service-wide action (s3:*) is still reported by AwsSolutions-IAM5",
    );
    const table = resources.table.node.defaultChild as CfnTable | undefined;
    if (access.table && table) {
      acknowledge(
        `AwsSolutions-IAM5[Resource::${arnOf(table)}/index/*]`,
        'The table grant covers its global secondary indexes (queries by GSI); the actions are the listed item operations, never Scan',
      );
    }
    const bucket = resources.bucket.node.defaultChild as CfnBucket | undefined;
    if (access.bucket && bucket) {
      const reason =
        'CDK bucket grant (grantRead/grantReadWrite) on the service bucket only: object keys are per workspace and not known in advance';
      const wildcards = [
        'Action::s3:GetObject*',
        'Action::s3:GetBucket*',
        'Action::s3:List*',
        `Resource::${arnOf(bucket)}/*`,
      ];
      if (access.bucket === 'write') wildcards.push('Action::s3:DeleteObject*', 'Action::s3:Abort*');
      for (const wildcard of wildcards) acknowledge(`AwsSolutions-IAM5[${wildcard}]`, reason);
    }
    acknowledge(
      'Serverless-LambdaDLQ',
      {
        api: 'Invoked synchronously by API Gateway: a failure is answered to the client, and a Lambda DLQ only receives failed asynchronous invocations',
        queue:
          'Invoked synchronously by an SQS event source mapping: a failed message returns to its queue and moves to the SQS dead-letter queue after maxReceiveCount',
        stream:
          "Invoked synchronously by a DynamoDB stream event source mapping: a batch that keeps failing is described to the mapping's on-failure destination (an SQS dead-letter queue), where a Lambda DLQ would never be used",
        schedule:
          "Failed asynchronous runs go to an on-failure destination (the schedule's SQS dead-letter queue), which records the error and which AWS recommends over a Lambda DLQ",
      }[invocation.kind],
    );
  }
}

/**
 * How cdk-nag prints the ARN of `resource` in a policy of `scope`'s stack: `<LogicalId.Arn>` in the
 * resource's own stack; in a nested stack, the parameter CDK creates there for the reference, named
 * `referenceto<unique id of the resource>Arn` (CDK's naming; the cdk-nag tests fail if it changes).
 */
export function arnInFindings(scope: Construct, resource: CfnResource): string {
  const stack = Stack.of(scope);
  if (Stack.of(resource) === stack) return `<${stack.getLogicalId(resource)}.Arn>`;
  return `<referenceto${Names.nodeUniqueId(resource.node)}Arn>`;
}

import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, queueUrlEnv } from '#shared/platform/config.ts';
import { BUNDLE, lambdaBundling } from '../bundling.ts';

/** What a function may touch: the same fields a route row or a job queue row declares. */
export interface ResourceAccess {
  table: 'read' | 'write';
  bucket?: 'read' | 'write';
  /** Job queues (names from JOB_QUEUES) the function sends to. */
  queues?: readonly string[];
  /** May put events on the project bus. */
  events?: boolean;
}

/** The shared resources every function is wired to. */
export interface ServiceResources {
  table: ITable;
  bucket: IBucket;
  eventBus: IEventBus;
  /** Job queues by their JOB_QUEUES name. */
  queues: ReadonlyMap<string, IQueue>;
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
  memoryMb?: number;
  timeoutSeconds?: number;
  logRetention?: RetentionDays;
  /** Settings of this function, beside the resource names every function gets. */
  environment?: Readonly<Record<string, string>>;
}

/** DynamoDB actions of read-only functions: point reads, batch reads and queries; never a Scan. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:DescribeTable',
] as const;
/** Writers add single-item and batch writes (ids are reserved with UpdateItem). */
export const TABLE_WRITE_ACTIONS = [
  ...TABLE_READ_ACTIONS,
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/**
 * A NodejsFunction with the house defaults (Node.js 22 on ARM64, X-Ray, source maps, ESM bundle,
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

    this.fn = new NodejsFunction(this, 'Function', {
      entry: join(props.root, props.entry),
      projectRoot: props.root,
      depsLockFilePath: join(props.root, 'package-lock.json'),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      bundling: lambdaBundling,
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
    resources.table.grant(this.fn, ...(access.table === 'write' ? TABLE_WRITE_ACTIONS : TABLE_READ_ACTIONS));

    if (access.bucket === 'write') resources.bucket.grantReadWrite(this.fn);
    else if (access.bucket === 'read') resources.bucket.grantRead(this.fn);

    for (const name of access.queues ?? []) {
      const queue = resources.queues.get(name);
      if (!queue) throw new Error(`${props.description}: unknown job queue "${name}" (not in JOB_QUEUES)`);
      queue.grantSendMessages(this.fn);
      this.fn.addEnvironment(queueUrlEnv(name), queue.queueUrl);
    }

    if (access.events) resources.eventBus.grantPutEventsTo(this.fn);
  }
}

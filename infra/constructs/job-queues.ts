import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { VISIBILITY_TIMEOUT_FACTOR } from '#shared/platform/config.ts';
import type { JobQueueDef } from '../routes.ts';
import { pascalCase } from './naming.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';

export interface JobQueuesProps {
  root: string;
  /** The JOB_QUEUES table (or a test's own). */
  queues: Readonly<Record<string, JobQueueDef>>;
  /** Table, bucket and bus; the queues come from this construct. */
  resources: Omit<ServiceResources, 'queues'>;
  logRetention?: RetentionDays;
}

export interface JobQueue {
  name: string;
  queue: Queue;
  deadLetterQueue: Queue;
  worker: ServiceFunction;
}

/**
 * One SQS queue per JOB_QUEUES row, each with its dead-letter queue and its worker. All queues exist
 * before any worker, so a worker may send to any queue (its own included).
 */
export class JobQueues extends Construct {
  /** Queues by their JOB_QUEUES name, for the functions that send to them. */
  readonly queues: ReadonlyMap<string, IQueue>;
  readonly jobs: readonly JobQueue[];

  constructor(scope: Construct, id: string, props: JobQueuesProps) {
    super(scope, id);
    const rows = Object.entries(props.queues);

    const created = rows.map(([name, def]) => {
      const scopeForQueue = new Construct(this, pascalCase(name));
      const deadLetterQueue = new Queue(scopeForQueue, 'DeadLetterQueue', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      const queue = new Queue(scopeForQueue, 'Queue', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * def.timeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
      });
      return { name, def, scopeForQueue, queue, deadLetterQueue };
    });
    this.queues = new Map(created.map(({ name, queue }) => [name, queue]));

    this.jobs = created.map(({ name, def, scopeForQueue, queue, deadLetterQueue }) => {
      const worker = new ServiceFunction(scopeForQueue, 'Worker', {
        root: props.root,
        entry: def.worker,
        description: `worker for ${name}`,
        access: def,
        resources: { ...props.resources, queues: this.queues },
        memoryMb: def.memoryMb,
        timeoutSeconds: def.timeoutSeconds,
        logRetention: props.logRetention,
      });
      worker.fn.addEventSource(
        new SqsEventSource(queue, {
          batchSize: def.batchSize,
          reportBatchItemFailures: true,
          // SQS requires a batching window for batches above 10 messages.
          maxBatchingWindow: def.batchSize > 10 ? Duration.seconds(1) : undefined,
        }),
      );
      return { name, queue, deadLetterQueue, worker };
    });
  }
}

import { Duration, Validations } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { queueUrlEnv, VISIBILITY_TIMEOUT_FACTOR } from '#shared/platform/config.ts';
import type { JobQueueDef } from '../routes.ts';
import { pascalCase } from './naming.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';
import { rowEnvironment } from './settings.ts';

export interface JobQueuesProps {
  root: string;
  /** The JOB_QUEUES table (or a test's own). */
  queues: Readonly<Record<string, JobQueueDef>>;
  /** Table, bucket and bus; the queues come from this construct. */
  resources: Omit<ServiceResources, 'queues'>;
  logRetention?: RetentionDays;
  /** Deployment values of settings that rows declare in `environment`; each reaches only those workers. */
  settings?: Readonly<Record<string, string>>;
  /**
   * Where the workers (function, role, log group, event source mapping) go, e.g. a nested stack, so
   * that they do not count against the queues' stack. Default: beside their queues.
   */
  workerScope?: Construct;
}

/** AWS's lower bound for an SQS event source mapping's maximum concurrency. */
export const MIN_EVENT_SOURCE_CONCURRENCY = 2;
export const MAX_EVENT_SOURCE_CONCURRENCY = 1000;

/**
 * The event source mapping's maximum concurrency for a row's `maxConcurrency`: absent stays unbounded
 * (undefined); 1 becomes 2, AWS's minimum. One batch at a time cannot be promised anyway (a standard
 * queue delivers at least once and out of order), so the setting bounds throughput, not ordering, and 2
 * is the closest bound AWS offers. Anything that is not a whole number from 1 to 1000 fails the synth.
 */
export function eventSourceConcurrency(name: string, maxConcurrency: number | undefined): number | undefined {
  if (maxConcurrency === undefined) return undefined;
  if (
    !Number.isInteger(maxConcurrency) ||
    maxConcurrency < 1 ||
    maxConcurrency > MAX_EVENT_SOURCE_CONCURRENCY
  ) {
    throw new Error(
      `Job queue ${name}: maxConcurrency must be a whole number from 1 to ${MAX_EVENT_SOURCE_CONCURRENCY}, got ${maxConcurrency}`,
    );
  }
  return Math.max(maxConcurrency, MIN_EVENT_SOURCE_CONCURRENCY);
}

export interface JobQueue {
  name: string;
  queue: Queue;
  deadLetterQueue: Queue;
  worker: ServiceFunction;
}

/**
 * One SQS queue per JOB_QUEUES row, each with its dead-letter queue and its worker. All queues exist
 * before any worker, so a worker may send to any queue (its own included). The queues stay where this
 * construct is (bus rules and senders reference them); the workers may live in another stack.
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
      acknowledgeDeadLetterQueue(deadLetterQueue);
      const queue = new Queue(scopeForQueue, 'Queue', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * def.timeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
      });
      return { name, def, scopeForQueue, queue, deadLetterQueue };
    });
    this.queues = new Map(created.map(({ name, queue }) => [name, queue]));

    const workerScope = props.workerScope && new Construct(props.workerScope, id);
    this.jobs = created.map(({ name, def, scopeForQueue, queue, deadLetterQueue }) => {
      const scopeForWorker = workerScope ? new Construct(workerScope, pascalCase(name)) : scopeForQueue;
      const worker = new ServiceFunction(scopeForWorker, 'Worker', {
        root: props.root,
        entry: def.worker,
        description: `worker for ${name}`,
        access: def,
        resources: { ...props.resources, queues: this.queues },
        invocation: { kind: 'queue' },
        memoryMb: def.memoryMb,
        timeoutSeconds: def.timeoutSeconds,
        logRetention: props.logRetention,
        // Its own queue's URL, to delay a message (ChangeMessageVisibility, part of consuming).
        environment: { ...rowEnvironment(def, props.settings), [queueUrlEnv(name)]: queue.queueUrl },
      });
      const source = new SqsEventSource(queue, {
        batchSize: def.batchSize,
        reportBatchItemFailures: true,
        // SQS requires a batching window for batches above 10 messages.
        maxBatchingWindow: def.batchSize > 10 ? Duration.seconds(1) : undefined,
        maxConcurrency: eventSourceConcurrency(name, def.maxConcurrency),
      });
      worker.fn.addEventSource(source);
      Validations.of(worker).acknowledge({
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          "SQS event source mappings take no on-failure destination; a message that keeps failing moves to the queue's dead-letter queue after maxReceiveCount",
      });
      return { name, queue, deadLetterQueue, worker };
    });
  }
}

/**
 * A dead-letter queue is where redrives end: it has no redrive policy of its own. Its messages stay 14
 * days and an alarm fires on the first one (Alarms). `usedAs` names a dead-letter use that cdk-nag does
 * not recognise (it only knows SQS redrive policies and Lambda DeadLetterConfig).
 */
export function acknowledgeDeadLetterQueue(queue: Queue, usedAs?: string): void {
  Validations.of(queue).acknowledge({
    id: 'Serverless-SQSRedrivePolicy',
    reason:
      'This queue is a dead-letter queue, the end of a redrive: its messages are kept 14 days and its alarm fires on the first one',
  });
  if (usedAs) {
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `This queue is a dead-letter queue: ${usedAs}`,
    });
  }
}

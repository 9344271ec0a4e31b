import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '#shared/platform/table-schema.ts';
import type { ChangeConsumerDef } from '../routes.ts';
import { acknowledgeDeadLetterQueue } from './job-queues.ts';
import { pascalCase } from './naming.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';
import { rowEnvironment } from './settings.ts';

export interface ChangeConsumersProps {
  root: string;
  /** The CHANGE_CONSUMERS table (or a test's own). */
  consumers: Readonly<Record<string, ChangeConsumerDef>>;
  /** The table must have a stream (NEW_AND_OLD_IMAGES). */
  resources: ServiceResources & { table: ITable };
  logRetention?: RetentionDays;
  settings?: Readonly<Record<string, string>>;
}

export interface ChangeConsumer {
  name: string;
  function: ServiceFunction;
  deadLetterQueue: Queue;
}

/**
 * The change feed in AWS: one function per CHANGE_CONSUMERS row on the table's DynamoDB stream, with
 * an event filter on the item kinds it consumes (the sort key), batches of its size and window,
 * ReportBatchItemFailures, bisection and bounded retries, and a dead-letter queue that receives the
 * description of a batch that kept failing. A one-second tumbling window makes each event name its
 * shard (`shardId`), which the consumers' per-shard sequence marks need; they keep no window state.
 */
export class ChangeConsumers extends Construct {
  readonly consumers: readonly ChangeConsumer[];

  constructor(scope: Construct, id: string, props: ChangeConsumersProps) {
    super(scope, id);
    this.consumers = Object.entries(props.consumers).map(([name, def]) => {
      const scopeForConsumer = new Construct(this, pascalCase(name));
      const deadLetterQueue = new Queue(scopeForConsumer, 'DeadLetterQueue', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      acknowledgeDeadLetterQueue(deadLetterQueue, "the stream event source mapping's on-failure destination");
      const fn = new ServiceFunction(scopeForConsumer, 'Function', {
        root: props.root,
        entry: def.handler,
        description: `change consumer ${name}`,
        access: def,
        resources: props.resources,
        invocation: { kind: 'stream' },
        memoryMb: def.memoryMb,
        timeoutSeconds: def.timeoutSeconds,
        logRetention: props.logRetention,
        environment: rowEnvironment(def, props.settings),
      });
      fn.fn.addEventSource(
        new DynamoEventSource(props.resources.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: def.batchSize,
          maxBatchingWindow: Duration.seconds(def.batchingWindowSeconds),
          retryAttempts: def.maxRetries,
          bisectBatchOnError: def.bisectOnError,
          reportBatchItemFailures: true,
          // Changes of one shard are applied in order, one batch at a time.
          parallelizationFactor: 1,
          tumblingWindow: Duration.seconds(1),
          onFailure: new SqsDlq(deadLetterQueue),
          filters: [
            FilterCriteria.filter({
              dynamodb: { Keys: { [TABLE_KEYS.sort]: { S: FilterRule.or(...def.sortKeys) } } },
            }),
          ],
        }),
      );
      return { name, function: fn, deadLetterQueue };
    });
  }
}

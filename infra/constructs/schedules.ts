import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ScheduleDef } from '../routes.ts';
import { acknowledgeDeadLetterQueue } from './job-queues.ts';
import { pascalCase } from './naming.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';
import { rowEnvironment } from './settings.ts';

export interface SchedulesProps {
  root: string;
  /** The SCHEDULES table (or a test's own). */
  schedules: Readonly<Record<string, ScheduleDef>>;
  resources: ServiceResources;
  logRetention?: RetentionDays;
  /** Deployment values of settings that rows declare in `environment`; each reaches only those functions. */
  settings?: Readonly<Record<string, string>>;
}

/**
 * A scheduled run is an asynchronous invocation: EventBridge retries delivering it (throttling, an
 * unavailable service) for at most one interval, Lambda retries a run that throws twice, and either
 * failure ends in the schedule's dead-letter queue (the rule target's DLQ, the function's on-failure
 * destination). A run that never happened is made up by the next.
 */
export const SCHEDULE_FUNCTION_RETRY_ATTEMPTS = 2;
export const SCHEDULE_TARGET_RETRY_ATTEMPTS = 3;

export interface ScheduledFunction {
  name: string;
  def: ScheduleDef;
  rule: Rule;
  function: ServiceFunction;
  deadLetterQueue: Queue;
}

/**
 * One function per SCHEDULES row with the grants its row declares, run by an EventBridge rate rule on
 * the account's default bus (schedules live there, not on the project bus). The rule target and the
 * function's failed runs share one dead-letter queue.
 */
export class Schedules extends Construct {
  readonly schedules: readonly ScheduledFunction[];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.schedules = Object.entries(props.schedules).map(([name, def]) => {
      if (!Number.isInteger(def.everyMinutes) || def.everyMinutes < 1) {
        throw new Error(
          `Schedule ${name}: everyMinutes must be a whole number >= 1, got ${def.everyMinutes}`,
        );
      }
      const scopeForSchedule = new Construct(this, pascalCase(name));
      const deadLetterQueue = new Queue(scopeForSchedule, 'DeadLetterQueue', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      acknowledgeDeadLetterQueue(
        deadLetterQueue,
        "the schedule rule target's DeadLetterConfig and the function's on-failure destination",
      );
      const fn = new ServiceFunction(scopeForSchedule, 'Function', {
        root: props.root,
        entry: def.handler,
        description: `schedule ${name}: ${def.description}`,
        access: def,
        resources: props.resources,
        invocation: { kind: 'schedule', deadLetterQueue, retryAttempts: SCHEDULE_FUNCTION_RETRY_ATTEMPTS },
        memoryMb: def.memoryMb,
        timeoutSeconds: def.timeoutSeconds,
        logRetention: props.logRetention,
        environment: rowEnvironment(def, props.settings),
      });
      const interval = Duration.minutes(def.everyMinutes);
      const rule = new Rule(scopeForSchedule, 'Rule', {
        description: `${name}: ${def.description} (every ${def.everyMinutes} min)`,
        schedule: Schedule.rate(interval),
        targets: [
          new LambdaFunction(fn.fn, {
            deadLetterQueue,
            retryAttempts: SCHEDULE_TARGET_RETRY_ATTEMPTS,
            // EventBridge's floor is 60 s.
            maxEventAge: Duration.seconds(Math.max(60, interval.toSeconds())),
          }),
        ],
      });
      return { name, def, rule, function: fn, deadLetterQueue };
    });
  }
}

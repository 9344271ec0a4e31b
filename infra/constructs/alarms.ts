import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ChangeConsumers } from './change-consumers.ts';
import type { HttpApi } from './http-api.ts';
import type { JobQueues } from './job-queues.ts';
import { pascalCase, routeId } from './naming.ts';
import type { ProjectEvents } from './project-events.ts';
import type { Schedules } from './schedules.ts';
import type { ServiceFunction } from './service-function.ts';

/** A change consumer whose oldest unapplied change is older than this is falling behind (charts lag). */
export const ITERATOR_AGE_ALARM_MS = 10 * 60_000;

export interface AlarmsProps {
  /** Alarms notify this address through an SNS topic; without it they only change state. */
  email?: string;
}

/**
 * The operator's alarms: any function error, any API 5xx, any message in a dead-letter queue (job
 * queues, bus rule targets, schedules). Each
 * fires on the first occurrence in its period and clears when the metric is quiet again.
 */
export class Alarms extends Construct {
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    if (props.email) {
      // Publishers (CloudWatch) must use TLS: the topic policy denies any other publish.
      this.topic = new Topic(this, 'Topic', { displayName: 'promptops alarms', enforceSSL: true });
      const subscription = this.topic.addSubscription(new EmailSubscription(props.email));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'An email notification that cannot be delivered loses nothing: the alarm and its history stay in CloudWatch, and a DLQ would need an alarm of its own on this same topic',
      });
    }
  }

  /** Errors of the authorizer and of every route function; 5xx answers of the API. */
  watchApi(http: HttpApi): void {
    this.functionErrors('AuthorizerErrors', http.authorizerFunction);
    for (const { route, function: fn } of http.routes) {
      this.functionErrors(`${routeId(route.method, route.path)}Errors`, fn);
    }
    this.add(
      'Api5xx',
      http.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      'API: 5xx answers',
    );
  }

  /** Errors of every worker and any message in a dead-letter queue. */
  watchJobs(jobs: JobQueues): void {
    for (const job of jobs.jobs) {
      const id = pascalCase(job.name);
      this.functionErrors(`${id}WorkerErrors`, job.worker);
      this.deadLetters(
        `${id}DeadLetters`,
        job.deadLetterQueue,
        `${job.name}: messages in the dead-letter queue`,
        this.scopeIn(Stack.of(job.worker)),
      );
    }
  }

  /** Any event a bus rule could not deliver to its target (the archive rule's included). */
  watchBusRules(events: ProjectEvents): void {
    for (const { name, deadLetterQueue } of events.rules) {
      this.deadLetters(
        `${pascalCase(name)}RuleDeadLetters`,
        deadLetterQueue,
        `bus rule ${name}: events not delivered to the target`,
      );
    }
  }

  /** Errors of every scheduled function and any run that failed for good. */
  watchSchedules(schedules: Schedules): void {
    for (const schedule of schedules.schedules) {
      const id = pascalCase(schedule.name);
      this.functionErrors(`${id}ScheduleErrors`, schedule.function);
      this.deadLetters(
        `${id}ScheduleDeadLetters`,
        schedule.deadLetterQueue,
        `schedule ${schedule.name}: runs that failed after their retries`,
        this.scopeIn(Stack.of(schedule.function)),
      );
    }
  }

  /**
   * Errors of every change consumer, any batch it gave up on (its dead-letter queue) and a stream
   * falling behind: the age of the oldest change it has not applied above ITERATOR_AGE_ALARM_MS.
   */
  watchChangeConsumers(consumers: ChangeConsumers): void {
    for (const consumer of consumers.consumers) {
      const id = pascalCase(consumer.name);
      this.functionErrors(`${id}ConsumerErrors`, consumer.function);
      this.deadLetters(
        `${id}ConsumerDeadLetters`,
        consumer.deadLetterQueue,
        `change consumer ${consumer.name}: batches that failed after their retries`,
        this.scopeIn(Stack.of(consumer.function)),
      );
      const age = consumer.function.fn.metric('IteratorAge', {
        period: Duration.minutes(5),
        statistic: 'Maximum',
      });
      const alarm = new Alarm(this.scopeIn(Stack.of(consumer.function)), `${id}ConsumerIteratorAge`, {
        metric: age,
        alarmDescription: `change consumer ${consumer.name}: changes waiting longer than ${ITERATOR_AGE_ALARM_MS / 60_000} min`,
        threshold: ITERATOR_AGE_ALARM_MS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      if (this.topic) {
        alarm.addAlarmAction(new SnsAction(this.topic));
        alarm.addOkAction(new SnsAction(this.topic));
      }
    }
  }

  /** In `scope`: the stack of the function that fills the queue, so that its alarms live together. */
  private deadLetters(id: string, queue: IQueue, description: string, scope: Construct = this): void {
    this.add(
      id,
      queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      description,
      scope,
    );
  }

  /**
   * A function's alarm lives in the function's own stack: a route's in its group's nested stack, a
   * worker's in the workers' (under an `Alarms` construct there), so that the root stack does not grow
   * by one alarm per route or worker.
   */
  private functionErrors(id: string, fn: ServiceFunction): void {
    this.add(
      id,
      fn.fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      `${fn.description}: errors`,
      this.scopeIn(Stack.of(fn)),
    );
  }

  private scopeIn(stack: Stack): Construct {
    if (stack === Stack.of(this)) return this;
    return (stack.node.tryFindChild('Alarms') as Construct | undefined) ?? new Construct(stack, 'Alarms');
  }

  private add(id: string, metric: Metric, description: string, scope: Construct = this): void {
    const alarm = new Alarm(scope, id, {
      metric,
      alarmDescription: description,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      const action = new SnsAction(this.topic);
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }
}

import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { HttpApi } from './http-api.ts';
import type { JobQueues } from './job-queues.ts';
import { pascalCase, routeId } from './naming.ts';
import type { ServiceFunction } from './service-function.ts';

export interface AlarmsProps {
  /** Alarms notify this address through an SNS topic; without it they only change state. */
  email?: string;
}

/**
 * The operator's alarms: any function error, any API 5xx, any message in a dead-letter queue. Each
 * fires on the first occurrence in its period and clears when the metric is quiet again.
 */
export class Alarms extends Construct {
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    if (props.email) {
      this.topic = new Topic(this, 'Topic', { displayName: 'promptops alarms' });
      this.topic.addSubscription(new EmailSubscription(props.email));
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
      this.add(
        `${id}DeadLetters`,
        job.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        `${job.name}: messages in the dead-letter queue`,
      );
    }
  }

  private functionErrors(id: string, fn: ServiceFunction): void {
    this.add(
      id,
      fn.fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      `${fn.description}: errors`,
    );
  }

  private add(id: string, metric: Metric, description: string): void {
    const alarm = new Alarm(this, id, {
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

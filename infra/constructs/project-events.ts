import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { EventBus, type IRuleTarget, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '#shared/platform/events.ts';
import type { EventRuleDef } from '../routes.ts';
import { acknowledgeDeadLetterQueue } from './job-queues.ts';
import { pascalCase } from './naming.ts';

export interface ProjectEventsProps {
  stage: string;
  archiveRetention?: RetentionDays;
}

/**
 * How EventBridge retries a rule target before the event goes to the target's dead-letter queue: a
 * throttled or unavailable target is retried with backoff for up to a day.
 */
export const RULE_TARGET_RETRY = { retryAttempts: 185, maxEventAge: Duration.hours(24) } as const;

/** A rule of the bus, its dead-letter queue and what it is for (named in its alarm). */
export interface BusRule {
  name: string;
  description: string;
  rule: Rule;
  deadLetterQueue: Queue;
}

/**
 * The project bus `promptops-<stage>`, an archive rule that copies every event from the service into
 * a CloudWatch log group for operators, and one rule per EVENT_RULES row (addQueueRules) that sends
 * the row's events to a job queue. Every rule target has a dead-letter queue and a retry policy.
 */
export class ProjectEvents extends Construct {
  readonly bus: EventBus;
  readonly archive: LogGroup;
  readonly archiveRule: Rule;
  private readonly busRules: BusRule[] = [];

  constructor(scope: Construct, id: string, props: ProjectEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: `promptops-${props.stage}` });

    // EventBridge only delivers to log groups named /aws/events/...
    const archiveName = `/aws/events/promptops-${props.stage}`;
    this.archive = new LogGroup(this, 'Archive', {
      logGroupName: archiveName,
      retention: props.archiveRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A native resource policy (AWS::Logs::ResourcePolicy) rather than the custom-resource Lambda the
    // stock CloudWatchLogGroup target deploys for the same purpose.
    this.archive.addToResourcePolicy(
      new PolicyStatement({
        principals: [
          new ServicePrincipal('events.amazonaws.com'),
          new ServicePrincipal('delivery.logs.amazonaws.com'),
        ],
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.archive.logGroupArn],
      }),
    );

    const archiveScope = new Construct(this, 'ArchiveTarget');
    const archiveDeadLetters = deadLetterQueue(archiveScope);
    const logGroupTarget: IRuleTarget = {
      bind: () => ({
        arn: Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          resourceName: this.archive.logGroupName,
        }),
        targetResource: this.archive,
        deadLetterConfig: { arn: archiveDeadLetters.queueArn },
        retryPolicy: {
          maximumRetryAttempts: RULE_TARGET_RETRY.retryAttempts,
          maximumEventAgeInSeconds: RULE_TARGET_RETRY.maxEventAge.toSeconds(),
        },
      }),
    };
    this.archiveRule = new Rule(this, 'ArchiveRule', {
      eventBus: this.bus,
      description: `Copies every ${EVENT_SOURCE} event to ${archiveName}`,
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [logGroupTarget],
    });
    // What the stock targets do for their dead-letter queue: only this rule may send to it.
    archiveDeadLetters.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [archiveDeadLetters.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': this.archiveRule.ruleArn } },
      }),
    );
    this.busRules.push({
      name: 'archive',
      description: `archive of every event to ${archiveName}`,
      rule: this.archiveRule,
      deadLetterQueue: archiveDeadLetters,
    });
  }

  /** Every rule of the bus with its dead-letter queue, the archive rule first. */
  get rules(): readonly BusRule[] {
    return this.busRules;
  }

  /**
   * One rule per EVENT_RULES row (or a test's own table): the row's event types from the service (every
   * type when it lists none) go to the named job queue, whose policy then lets only this rule send. A
   * row naming a queue that `queues` lacks fails the synth.
   */
  addQueueRules(rows: Readonly<Record<string, EventRuleDef>>, queues: ReadonlyMap<string, IQueue>): void {
    for (const [name, def] of Object.entries(rows)) {
      const queue = queues.get(def.queue);
      if (!queue) throw new Error(`Event rule ${name}: unknown job queue "${def.queue}" (not in JOB_QUEUES)`);
      if (def.eventTypes?.length === 0) {
        throw new Error(`Event rule ${name}: eventTypes is empty (leave it out to route every event type)`);
      }
      const scope = new Construct(this, `${pascalCase(name)}Rule`);
      const deadLetters = deadLetterQueue(scope);
      const rule = new Rule(scope, 'Rule', {
        eventBus: this.bus,
        description: def.description,
        eventPattern: {
          source: [EVENT_SOURCE],
          ...(def.eventTypes && { detailType: [...def.eventTypes] }),
        },
        targets: [new SqsQueue(queue, { deadLetterQueue: deadLetters, ...RULE_TARGET_RETRY })],
      });
      this.busRules.push({ name, description: def.description, rule, deadLetterQueue: deadLetters });
    }
  }
}

/** The dead-letter queue of one rule target: events EventBridge could not deliver after its retries. */
function deadLetterQueue(scope: Construct): Queue {
  const queue = new Queue(scope, 'DeadLetterQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  acknowledgeDeadLetterQueue(queue, 'the DeadLetterConfig of an EventBridge rule target');
  return queue;
}

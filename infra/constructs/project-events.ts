import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { EventBus, type IRuleTarget, Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '#shared/platform/events.ts';

export interface ProjectEventsProps {
  stage: string;
  archiveRetention?: RetentionDays;
}

/**
 * The project bus `promptops-<stage>` and an archive rule that copies every event from the service into
 * a CloudWatch log group for operators. Webhook delivery will be another rule on the same bus.
 */
export class ProjectEvents extends Construct {
  readonly bus: EventBus;
  readonly archive: LogGroup;
  readonly archiveRule: Rule;

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

    const logGroupTarget: IRuleTarget = {
      bind: () => ({
        arn: Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          resourceName: this.archive.logGroupName,
        }),
        targetResource: this.archive,
      }),
    };
    this.archiveRule = new Rule(this, 'ArchiveRule', {
      eventBus: this.bus,
      description: `Copies every ${EVENT_SOURCE} event to ${archiveName}`,
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [logGroupTarget],
    });
  }
}

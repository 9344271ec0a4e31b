import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { bodyTooLarge } from '../gateway-errors.ts';

/**
 * A regular expression matching a decimal `content-length` strictly greater than `limit`: any longer
 * number, or a number of the same length that is larger digit by digit. Leading zeros are allowed
 * (`Content-Length: 007` is legal HTTP). Only constructs AWS WAF accepts are used: anchors, character
 * classes and counted repeats, with no groups (WAF rejects capturing subexpressions) — each branch is
 * anchored on its own instead.
 */
export function contentLengthOverRegex(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new Error(`limit must be a non-negative integer: ${limit}`);
  const digits = String(limit);
  const repeat = (count: number) => (count === 0 ? '' : count === 1 ? '\\d' : `\\d{${count}}`);
  const branches = [`[1-9]\\d{${digits.length},}`];
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[i]);
    if (digit === 9) continue;
    const next = digit + 1 === 9 ? '9' : `[${digit + 1}-9]`;
    branches.push(`${digits.slice(0, i)}${next}${repeat(digits.length - i - 1)}`);
  }
  return branches.map((branch) => `^0*${branch}$`).join('|');
}

export interface RequestSizeGuardProps {
  /** The API stage the web ACL protects. */
  stage: Stage;
  /** Requests declaring a larger body are refused with 413. */
  maxBodyBytes: number;
  /** Prefix of the web ACL's metric names. */
  metricPrefix: string;
}

const TOO_LARGE_BODY_KEY = 'request-too-large';

/**
 * A regional WAF web ACL on the API stage that answers 413, in the service's error shape, to requests
 * whose `content-length` exceeds what a Lambda can receive. Without it API Gateway would pass such a
 * request on and the failed invoke would surface as a 5xx. WAF inspects only the first kilobytes of a
 * body, so the rule reads the declared length from the header instead.
 */
export class RequestSizeGuard extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: RequestSizeGuardProps) {
    super(scope, id);
    const visibility = (name: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${props.metricPrefix}-${name}`,
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: `Refuses request bodies over ${props.maxBodyBytes} bytes with 413`,
      defaultAction: { allow: {} },
      visibilityConfig: visibility('web-acl'),
      customResponseBodies: {
        [TOO_LARGE_BODY_KEY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(bodyTooLarge(props.maxBodyBytes)),
        },
      },
      rules: [
        {
          name: 'RequestBodyTooLarge',
          priority: 0,
          action: {
            block: { customResponse: { responseCode: 413, customResponseBodyKey: TOO_LARGE_BODY_KEY } },
          },
          statement: {
            regexMatchStatement: {
              // SingleHeader is untyped JSON in the L1: CloudFormation's own casing.
              fieldToMatch: { singleHeader: { Name: 'content-length' } },
              regexString: contentLengthOverRegex(props.maxBodyBytes),
              textTransformations: [{ priority: 0, type: 'NONE' }],
            },
          },
          visibilityConfig: visibility('request-body-too-large'),
        },
      ],
    });

    // The stage ARN references the stage, so the association waits for it.
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}

import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type AwsCall, awsCall } from './aws-calls.ts';

/** Fixture route: makes the AWS call named by `{call}` and answers its outcome (500 when refused). */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const call = decodeURIComponent(event.pathParameters?.call ?? '') as AwsCall;
  const outcome = await awsCall(call);
  return { statusCode: outcome.ok ? 200 : 500, body: JSON.stringify(outcome) };
}

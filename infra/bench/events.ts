import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type BenchRow, fmt } from './support.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * What events cost the request that causes them: DynamoDB calls that write event items during a
 * publish with two labels (three events: the version and two label moves), against the emulators.
 */
export async function benchEventWrites(workspaceId: number): Promise<BenchRow[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { toAuthorizerContext, FULL_ACCESS } = await import('#shared/platform/auth-context.ts');
  const { handler } = (await import('#functions/http/prompt-template-publish.ts')) as { handler: Handler };
  let eventWrites = 0;
  let calls = 0;
  documentClient().middlewareStack.add(
    (next) => (args) => {
      calls++;
      if (/#EV#/.test(JSON.stringify((args as { input?: unknown }).input ?? {}))) eventWrites++;
      return next(args);
    },
    { step: 'initialize', name: 'benchEventWriteCounter' },
  );
  const authorizer = toAuthorizerContext({
    workspaceId,
    userId: 1,
    userEmail: null,
    permissions: FULL_ACCESS,
  });
  const publish = async (i: number) => {
    const result = await handler(
      {
        headers: {},
        multiValueHeaders: {},
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        pathParameters: null,
        isBase64Encoded: false,
        requestContext: { authorizer },
        body: JSON.stringify({
          prompt_template: { prompt_name: 'bench-events' },
          prompt_version: {
            prompt_template: { type: 'completion', content: [{ type: 'text', text: `v${i}` }] },
          },
          release_labels: ['prod', 'staging'],
        }),
      } as unknown as APIGatewayProxyEvent,
      { awsRequestId: 'bench' } as Context,
    );
    if (result.statusCode !== 200) throw new Error(`publish answered ${result.statusCode}: ${result.body}`);
  };
  await publish(0);
  const publishes = 50;
  eventWrites = 0;
  calls = 0;
  for (let i = 1; i <= publishes; i++) await publish(i);
  return [
    {
      name: 'events: DynamoDB writes of event items per publish (3 events)',
      value: `${fmt(eventWrites / publishes, 3)} (of ${fmt(calls / publishes, 2)} calls)`,
      target: 'at most 1',
    },
  ];
}

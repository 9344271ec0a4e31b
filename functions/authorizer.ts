import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { findApiKey } from '#shared/auth/api-keys.ts';
import { toAuthorizerContext } from '#shared/platform/auth-context.ts';

/**
 * The key authorizer. An unknown or revoked key gets a Deny policy, which the API's ACCESS_DENIED
 * gateway response turns into 401 "Invalid API key" (a missing header never reaches this function:
 * API Gateway answers it as UNAUTHORIZED, "Missing API key"). The policy covers every route of the API
 * so that one cached decision serves them all.
 */
export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const key = headerValue(event.headers, 'x-api-key');
  const auth = key ? await findApiKey(key) : undefined;
  const resource = apiWildcard(event.methodArn);
  if (!auth) return policy('anonymous', 'Deny', resource);
  return { ...policy(`user:${auth.userId}`, 'Allow', resource), context: { ...toAuthorizerContext(auth) } };
}

function headerValue(headers: APIGatewayRequestAuthorizerEvent['headers'], name: string): string | undefined {
  for (const [header, value] of Object.entries(headers ?? {}))
    if (header.toLowerCase() === name) return value;
  return undefined;
}

/** arn:aws:execute-api:region:account:apiId/stage/METHOD/path -> arn:aws:execute-api:region:account:apiId/stage/* */
function apiWildcard(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*`;
}

function policy(principalId: string, effect: 'Allow' | 'Deny', resource: string): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
    },
  };
}

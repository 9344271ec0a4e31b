/**
 * The error answers the API's front door gives before any function runs, as one table read by the CDK
 * stack (API Gateway's gateway responses, the WAF's 413: infra/constructs/) and by the local gateway
 * (infra/local/gateway.ts), so a client sees the same status and body locally and in AWS. Each body is
 * the service's error body (`{success: false, message, error}`).
 */
export interface GatewayError {
  /** API Gateway's gateway response type (`ResponseType.of` in the stack). */
  type: string;
  /** Omitted: keep the status API Gateway chose (the DEFAULT_* families). */
  statusCode?: number;
  /** Either a fixed message or API Gateway's own (`$context.error.messageString`). */
  message: string | { fromContext: true };
  error: string;
}

export const GATEWAY_ERRORS = {
  // The X-API-KEY header is absent: API Gateway answers without calling the authorizer.
  missingKey: { type: 'UNAUTHORIZED', statusCode: 401, message: 'Missing API key', error: 'unauthorized' },
  // The authorizer returned a Deny policy: an unknown or revoked key.
  invalidKey: { type: 'ACCESS_DENIED', statusCode: 401, message: 'Invalid API key', error: 'unauthorized' },
  throttled: { type: 'THROTTLED', statusCode: 429, message: 'Too many requests', error: 'throttled' },
  // Over API Gateway's own 10 MB; the WAF refuses bodies over 6 MB before (bodyTooLarge).
  tooLarge: {
    type: 'REQUEST_TOO_LARGE',
    statusCode: 413,
    message: 'Request body too large',
    error: 'payload_too_large',
  },
  // API Gateway answers an unknown path or method with 403 "Missing Authentication Token".
  noRoute: {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: 404,
    message: 'Not found',
    error: 'not_found',
  },
  internal: { type: 'DEFAULT_5XX', message: 'Internal error', error: 'internal_error' },
  badRequest: { type: 'DEFAULT_4XX', message: { fromContext: true }, error: 'bad_request' },
} as const satisfies Record<string, GatewayError>;

/** The body of a gateway error with a fixed message. */
export function gatewayErrorBody(gatewayError: GatewayError & { message: string }) {
  return { success: false as const, message: gatewayError.message, error: gatewayError.error };
}

/** The WAF's answer to a body over the limit (status 413; infra/constructs/request-size-guard.ts). */
export function bodyTooLarge(maxBodyBytes: number) {
  return {
    success: false as const,
    message: `Request body exceeds ${maxBodyBytes} bytes`,
    error: 'payload_too_large',
  };
}

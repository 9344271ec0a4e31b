import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyTooLarge, GATEWAY_ERRORS, gatewayErrorBody } from '#infra/gateway-errors.ts';
import { MAX_REQUEST_BODY_BYTES } from '#shared/platform/config.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The local gateway answers the errors API Gateway and the WAF answer before any function runs with the
 * bodies of infra/gateway-errors.ts, the table the CDK stack writes into its gateway responses
 * (test/infra/stack.test.ts): a client sees the same answer locally and in AWS.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe('gateway errors', () => {
  it('answers an unknown path or method 404 with the gateway table body', async () => {
    for (const [method, path] of [
      ['GET', '/no-such-route'],
      ['DELETE', '/log-request'],
    ] as const) {
      const answer = await service.call(method, path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ success: false, message: 'Not found', error: 'not_found' });
      expect(answer.body).toEqual(gatewayErrorBody(GATEWAY_ERRORS.noRoute));
    }
  });

  it('answers a missing or unknown key 401 with the gateway table bodies', async () => {
    const missing = await service.rejected('POST', '/log-request', { key: null, body: logRequestBody() });
    expect(missing.status).toBe(GATEWAY_ERRORS.missingKey.statusCode);
    expect(missing.body).toEqual(gatewayErrorBody(GATEWAY_ERRORS.missingKey));
    const unknown = await service.rejected('GET', '/prompt-templates', { key: 'pl_not-a-key' });
    expect(unknown.status).toBe(GATEWAY_ERRORS.invalidKey.statusCode);
    expect(unknown.body).toEqual(gatewayErrorBody(GATEWAY_ERRORS.invalidKey));
  });

  it("answers a body over the limit 413 with the WAF's body", async () => {
    const answer = await service.rejected('POST', '/log-request', {
      rawBody: Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 'a'),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(bodyTooLarge(MAX_REQUEST_BODY_BYTES));
  });
});

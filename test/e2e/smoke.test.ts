import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe('local runtime', () => {
  it('logs a request and reads it back', async () => {
    const created = await service.call('POST', '/log-request', { body: logRequestBody() });
    expect(created.status).toBe(201);
    const read = await service.call('GET', `/api/public/v2/requests/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.output.messages[0].content[0].text).toBe('Hi there!');
  });
});

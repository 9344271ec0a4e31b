import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/platform/logger.ts';
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

  it("a request's log lines carry the id of its x-amzn-RequestId answer header", async () => {
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array) => written.push(String(chunk)) > 0;
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    logger.setLogLevel('WARN');
    try {
      const answer = await service.rejected('GET', '/api/public/v2/requests/999999');
      expect(answer.status).toBe(404);
      const requestId = answer.headers.get('x-amzn-requestid');
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const lines = written.filter((text) => text.includes(requestId!)).map((text) => JSON.parse(text));
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'WARN',
          message: 'Request rejected',
          status: 404,
          correlation_id: requestId,
          function_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        }),
      ]);
    } finally {
      logger.setLogLevel('ERROR');
      vi.restoreAllMocks();
    }
  });
});

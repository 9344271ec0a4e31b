import type { APIGatewayProxyEvent, Context, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toAuthorizerContext } from '#shared/platform/auth-context.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';

/**
 * Every line logged during an invocation carries that invocation's ids, also when invocations run at
 * once in one process (as locally, where every function shares the process).
 */
let lines: Record<string, unknown>[];

beforeEach(() => {
  lines = [];
  logger.setLogLevel('INFO');
  const capture = (chunk: string | Uint8Array) => {
    lines.push(JSON.parse(String(chunk)));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
});

afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('ERROR');
});

const context = (awsRequestId: string) => ({ awsRequestId }) as Context;

/** Lets the other invocation run between two lines of this one. */
const interleave = () => new Promise<void>((resolve) => setImmediate(resolve));

function proxyEvent(requestId: string, step: string): APIGatewayProxyEvent {
  return {
    headers: {},
    queryStringParameters: { step },
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      authorizer: {
        ...toAuthorizerContext({
          workspaceId: 1,
          userId: 1,
          userEmail: null,
          permissions: { request_logs: 'read' },
        }),
        principalId: 'user:1',
      },
    },
  } as unknown as APIGatewayProxyEvent;
}

describe('request ids on log lines', () => {
  it('two HTTP invocations at once: each line carries its own API Gateway and Lambda request ids', async () => {
    const route = httpRoute({
      permission: ['request_logs', 'read'],
      handle: async ({ query }) => {
        logger.info('started', { step: query });
        await interleave();
        logger.appendKeys({ workspaceId: 1 });
        await interleave();
        logger.info('finished');
        return {};
      },
    });

    await Promise.all([
      route(proxyEvent('api-a', 'a'), context('lambda-a')),
      route(proxyEvent('api-b', 'b'), context('lambda-b')),
    ]);

    expect(lines).toHaveLength(4);
    for (const id of ['a', 'b']) {
      const own = lines.filter((line) => line.correlation_id === `api-${id}`);
      expect(own.map((line) => line.message)).toEqual(['started', 'finished']);
      for (const line of own) expect(line.function_request_id).toBe(`lambda-${id}`);
    }
    // A key appended during one invocation stays on that invocation's lines only.
    expect(lines.filter((line) => line.message === 'finished').every((line) => line.workspaceId === 1)).toBe(
      true,
    );
    expect(lines.filter((line) => line.message === 'started').some((line) => 'workspaceId' in line)).toBe(
      false,
    );
  });

  it("an SQS worker's lines carry the invocation's request id and the record's message id", async () => {
    const worker = sqsBatchHandler(
      async ({ record }) => {
        logger.appendKeys({ jobId: record.body });
        await interleave();
        logger.info('processing');
      },
      { maxReceiveCount: 3 },
    );
    const batch = (...ids: string[]) =>
      ({
        Records: ids.map((id) => ({ messageId: id, body: `job-${id}`, attributes: {} })),
      }) as unknown as SQSEvent;

    await Promise.all([
      worker(batch('m1', 'm2'), context('lambda-1')),
      worker(batch('m3'), context('lambda-2')),
    ]);

    const seen = lines.map(({ function_request_id, messageId, jobId }) => ({
      function_request_id,
      messageId,
      jobId,
    }));
    expect(seen).toHaveLength(3);
    expect(seen).toEqual(
      expect.arrayContaining([
        { function_request_id: 'lambda-1', messageId: 'm1', jobId: 'job-m1' },
        { function_request_id: 'lambda-1', messageId: 'm2', jobId: 'job-m2' },
        { function_request_id: 'lambda-2', messageId: 'm3', jobId: 'job-m3' },
      ]),
    );
  });

  it('a line logged outside any invocation carries no request id', () => {
    logger.info('at start-up');
    expect(lines).toEqual([expect.objectContaining({ message: 'at start-up' })]);
    expect(lines[0]).not.toHaveProperty('function_request_id');
  });
});

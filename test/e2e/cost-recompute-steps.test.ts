import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_QUEUES } from '#infra/routes.ts';
import { COST_RECOMPUTE_QUEUE } from '#shared/cost-recompute/recompute.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * A recompute in steps (two logs each here, 20,000 in production), every step message delivered twice:
 * each log is counted once, every log is rewritten, and the job ends once.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    jobQueues: {
      ...JOB_QUEUES,
      [COST_RECOMPUTE_QUEUE.name]: {
        ...JOB_QUEUES[COST_RECOMPUTE_QUEUE.name]!,
        worker: 'test/support/cost-recompute-small-steps-worker.ts',
      },
    },
  });
});
afterAll(() => service?.stop());

describe('a recompute in steps, under duplicate deliveries', () => {
  it('counts each log once and rewrites them all', async () => {
    const ids: number[] = [];
    // Two logs share a start time: the cursor (start time, then id) must not skip or repeat either.
    for (const minute of [0, 1, 1, 2, 3, 4, 5]) {
      const start = Date.parse('2026-04-01T08:00:00Z') + minute * 60_000;
      const answer = await service.call('POST', '/log-request', {
        body: logRequestBody({
          model: 'gpt-4o-mini',
          input_tokens: 1_000_000,
          output_tokens: 0,
          request_start_time: new Date(start).toISOString(),
          request_end_time: new Date(start + 100).toISOString(),
        }),
      });
      ids.push(answer.body.id);
    }
    await service.call('PUT', '/api/public/v2/model-prices/gpt-4o-mini', {
      body: { usd_per_million_tokens: { input: 1, output: 1 } },
    });

    const started = await service.call('POST', '/api/public/v2/requests/cost-recompute', {
      body: { start_time: '2026-04-01T00:00:00Z', end_time: '2026-04-02T00:00:00Z' },
    });
    expect(started.status).toBe(202);
    await service.messaging.idle();

    const job = await service.call('GET', `/api/public/v2/requests/cost-recompute/${started.body.job.id}`);
    expect(job.body.job).toMatchObject({
      status: 'done',
      matched: 7,
      rewritten: 7,
      unchanged: 0,
      client_priced: 0,
    });
    // 7 logs in steps of 2: the last step is the fourth (numbered 3).
    const stored = await new DynamoDBClient({ endpoint: service.dynamodbEndpoint }).send(
      new GetItemCommand({
        TableName: service.tableName,
        Key: { PK: { S: `W#${service.workspaceId}#CRJ#${started.body.job.id}` }, SK: { S: 'CRJ' } },
      }),
    );
    expect(stored.Item?.step?.N).toBe('3');
    for (const id of ids) {
      const log = await service.call('GET', `/api/public/v2/requests/${id}`);
      expect(log.body.cost).toMatchObject({ total: 1, source: 'workspace_override' });
    }
  });
});

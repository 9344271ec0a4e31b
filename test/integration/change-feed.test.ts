import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_SHARD_ID } from '#infra/local/change-feed.ts';
import { recorder } from '#test/support/change-recorder.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The local capture of the table's writes (dynalite has no Streams): request-log writes reach a change
 * consumer as DynamoDB Streams records with old and new images, in order, in batches of the consumer's
 * size, and a failing batch is delivered again (split in two, or from its first failed change) until
 * its retries run out. The consumer here records what it gets.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    retryDelayMs: 1,
    changeConsumers: {
      recorder: {
        handler: 'test/support/change-recorder.ts',
        sortKeys: ['RL'],
        batchSize: 3,
        batchingWindowSeconds: 60,
        maxRetries: 2,
        bisectOnError: true,
        timeoutSeconds: 10,
        memoryMb: 128,
        table: 'read',
      },
    },
  });
});
afterAll(() => service?.stop());
beforeEach(async () => {
  await service.changes.idle();
  recorder.events.length = 0;
  recorder.throwTimes = 0;
  recorder.failItemAt = undefined;
});

const log = async (overrides: Record<string, unknown> = {}) => {
  const answer = await service.call('POST', '/log-request', { body: logRequestBody(overrides) });
  expect(answer.status).toBe(201);
  return answer.body.id as number;
};
const sequences = () => recorder.events.flatMap((e) => e.Records.map((r) => r.dynamodb!.SequenceNumber!));

describe('local change feed', () => {
  it('delivers inserts and updates with both images, in order, in batches of the consumer', async () => {
    const ids = [await log({ tags: ['a'] }), await log(), await log(), await log()];
    await service.call('POST', '/rest/track-metadata', {
      body: { request_id: ids[0], metadata: { user: 'u1' } },
    });
    // An unrelated item kind (a prompt) is not delivered.
    await service.call('POST', '/rest/prompt-templates', {
      body: {
        prompt_template: {
          prompt_name: 'feed-p',
          prompt_template: { type: 'completion', content: [{ type: 'text', text: 'x' }] },
        },
      },
    });
    await service.changes.idle();

    expect(recorder.events.map((e) => e.Records.length)).toEqual([3, 2]);
    expect(recorder.events.every((e) => e.shardId === LOCAL_SHARD_ID)).toBe(true);
    const records = recorder.events.flatMap((e) => e.Records);
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'INSERT', 'INSERT', 'INSERT', 'MODIFY']);
    const seq = sequences();
    expect([...seq].sort()).toEqual(seq);
    expect(new Set(seq).size).toBe(5);
    const modify = records[4]!.dynamodb!;
    expect(modify.Keys).toEqual({ PK: { S: `W#${service.workspaceId}#RL#${ids[0]}` }, SK: { S: 'RL' } });
    expect(JSON.parse(modify.OldImage!.doc!.S!).metadata).toEqual({});
    expect(JSON.parse(modify.NewImage!.doc!.S!).metadata).toEqual({ user: 'u1' });
    expect(records[0]!.dynamodb!.OldImage).toBeUndefined();
    expect(records[0]!.eventSource).toBe('aws:dynamodb');
  });

  it('records nothing for a write that fails or changes nothing', async () => {
    const id = await log({ metadata: { same: 'x' } });
    await service.changes.idle();
    recorder.events.length = 0;
    await service.call('POST', '/rest/track-metadata', { body: { request_id: id, metadata: { same: 'x' } } });
    await service.call('POST', '/rest/track-metadata', {
      body: { request_id: 987654321, metadata: { a: 'b' } },
    });
    await service.changes.idle();
    expect(recorder.events).toEqual([]);
  });

  it('retries a batch that throws split in two, and one with a failed change from that change', async () => {
    recorder.throwTimes = 1;
    await log();
    await log();
    await log();
    await service.changes.idle();
    const [first, ...rest] = recorder.events.map((e) => e.Records.map((r) => r.dynamodb!.SequenceNumber));
    expect(first).toHaveLength(3);
    // Bisected: the first two, then the last one.
    expect(rest).toEqual([first!.slice(0, 2), first!.slice(2)]);

    recorder.events.length = 0;
    recorder.failItemAt = 1;
    await log();
    await log();
    await log();
    await service.changes.idle();
    const batches = recorder.events.map((e) => e.Records.map((r) => r.dynamodb!.SequenceNumber));
    expect(batches).toEqual([batches[0], batches[0]!.slice(1)]);
  });

  it('sets aside changes whose batch keeps failing, and goes on with the next ones', async () => {
    recorder.throwTimes = 100;
    await log();
    await service.changes.idle();
    expect(service.changes.deadLetters.at(-1)).toMatchObject({ consumer: 'recorder' });
    // 1 delivery + 2 retries.
    expect(recorder.events).toHaveLength(3);
    recorder.throwTimes = 0;
    recorder.events.length = 0;
    await log();
    await service.changes.idle();
    expect(recorder.events).toHaveLength(1);
  });
});

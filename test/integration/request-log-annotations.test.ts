import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Scores and metadata written concurrently on one log, inline and held in S3, against dynalite and
 * s3rver: no update may be lost, and an S3-held doc is swapped by pointer without leaving garbage.
 */
let service: TestService;
let m: {
  annotations: typeof import('#shared/request-logs/annotations.ts');
  repository: typeof import('#shared/request-logs/repository.ts');
  dynamo: typeof import('#shared/platform/dynamo.ts');
};

beforeAll(async () => {
  service = await startTestService();
  m = {
    annotations: await import('#shared/request-logs/annotations.ts'),
    repository: await import('#shared/request-logs/repository.ts'),
    dynamo: await import('#shared/platform/dynamo.ts'),
  };
});
afterAll(() => service?.stop());

async function logged(overrides: Record<string, unknown> = {}): Promise<number> {
  const created = await service.call('POST', '/log-request', { body: logRequestBody(overrides) });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

async function item(id: number) {
  const { dynamo, table } = m.dynamo;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: table(),
      Key: m.repository.requestLogKey(service.workspaceId, id),
      ConsistentRead: true,
    }),
  );
  return Item!;
}

const bigInput = () => ({
  type: 'chat',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(400_000) }] }],
});

describe('concurrent annotations', () => {
  it('keeps every name when 20 scores land on one log at once', async () => {
    const id = await logged();
    const names = Array.from({ length: 20 }, (_, i) => `judge-${i}`);
    await Promise.all(names.map((name, i) => m.annotations.trackScore(service.workspaceId, id, i, name)));
    const record = await m.repository.getRequestLog(service.workspaceId, id);
    expect(record?.scores).toEqual({ default: 0, ...Object.fromEntries(names.map((name, i) => [name, i])) });
    expect((await item(id)).docVersion).toBe(20);
  });

  it('keeps every key when scores and metadata interleave', async () => {
    const id = await logged({ metadata: { env: 'prod' } });
    await Promise.all([
      m.annotations.trackScore(service.workspaceId, id, 80),
      m.annotations.trackMetadata(service.workspaceId, id, { a: '1' }),
      m.annotations.trackMetadata(service.workspaceId, id, { b: '2' }),
      m.annotations.trackScore(service.workspaceId, id, 30, 'tone'),
    ]);
    const record = await m.repository.getRequestLog(service.workspaceId, id);
    expect(record).toMatchObject({
      score: 80,
      scores: { default: 80, tone: 30 },
      metadata: { env: 'prod', a: '1', b: '2' },
    });
  });

  it('swaps the S3 object of a large log by pointer and deletes the one it replaced', async () => {
    const objectsBefore = await service.countObjects();
    const id = await logged({ input: bigInput() });
    const first = await item(id);
    expect(first.doc).toBeUndefined();
    expect(typeof first.docKey).toBe('string');
    expect(await service.countObjects()).toBe(objectsBefore + 1);

    await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((name, i) => m.annotations.trackScore(service.workspaceId, id, i, name)),
    );
    const after = await item(id);
    expect(after.docVersion).toBe(5);
    expect(after.docKey).not.toBe(first.docKey);
    expect(await service.countObjects()).toBe(objectsBefore + 1);
    const record = (await m.repository.getRequestLog(service.workspaceId, id))!;
    expect(record.scores).toEqual({ default: 0, a: 0, b: 1, c: 2, d: 3, e: 4 });
    expect((record.input as ReturnType<typeof bigInput>).messages[0]!.content[0]!.text).toHaveLength(400_000);
  });

  it('reads a doc whose object was replaced after the item was read', async () => {
    const id = await logged({ input: bigInput() });
    const stale = await item(id);
    await m.annotations.trackMetadata(service.workspaceId, id, { late: 'yes' });
    const record = await m.repository.readDoc(stale);
    expect(record.metadata).toEqual({ late: 'yes' });
  });

  it('answers 404 for an unknown id or a log of another workspace, writing nothing', async () => {
    const { ensureWorkspace } = await import('#shared/auth/api-keys.ts');
    const { workspaceId: other } = await ensureWorkspace('annotations-other');
    const id = await logged();
    const items = await service.countItems();
    await expect(m.annotations.trackScore(other, id, 5)).rejects.toMatchObject({ status: 404 });
    await expect(
      m.annotations.trackMetadata(service.workspaceId, 987_654_321, { a: 'b' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(await service.countItems()).toBe(items);
    expect((await item(id)).docVersion).toBeUndefined();
  });
});

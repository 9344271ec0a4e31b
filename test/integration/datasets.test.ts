import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { DEAD_LETTERED, expectErrorLogs } from '#test/support/logs.ts';
import { sqsEvent } from '#test/support/sqs.ts';

/**
 * The dataset data layer and job lifecycle against the local runtime's emulators (dynalite, s3rver)
 * and its in-process queues: version numbering, one draft per group under races and after crashes,
 * redelivered and concurrent jobs, poison messages, and a job message that cannot be sent.
 */
let service: TestService;
let m: {
  dynamo: typeof import('#shared/platform/dynamo.ts');
  config: typeof import('#shared/platform/config.ts');
  blobs: typeof import('#shared/platform/blob-store.ts');
  keys: typeof import('#shared/datasets/keys.ts');
  groups: typeof import('#shared/datasets/groups.ts');
  drafts: typeof import('#shared/datasets/drafts.ts');
  repository: typeof import('#shared/datasets/repository.ts');
  lifecycle: typeof import('#shared/datasets/job-lifecycle.ts');
  fileJob: typeof import('#shared/datasets/file-job.ts');
  jobs: typeof import('#shared/datasets/jobs.ts');
  ids: typeof import('#shared/platform/ids.ts');
  externalIds: typeof import('#shared/external-ids/external-ids.ts');
};

beforeAll(async () => {
  service = await startTestService();
  m = {
    dynamo: await import('#shared/platform/dynamo.ts'),
    config: await import('#shared/platform/config.ts'),
    blobs: await import('#shared/platform/blob-store.ts'),
    keys: await import('#shared/datasets/keys.ts'),
    groups: await import('#shared/datasets/groups.ts'),
    drafts: await import('#shared/datasets/drafts.ts'),
    repository: await import('#shared/datasets/repository.ts'),
    lifecycle: await import('#shared/datasets/job-lifecycle.ts'),
    fileJob: await import('#shared/datasets/file-job.ts'),
    jobs: await import('#shared/datasets/jobs.ts'),
    ids: await import('#shared/platform/ids.ts'),
    externalIds: await import('#shared/external-ids/external-ids.ts'),
  };
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
let names = 0;

async function newGroup() {
  const { group, draft } = await m.groups.createDatasetGroup(service.workspaceId, 1, {
    name: `integration-${++names}`,
    folderId: null,
  });
  return { group, draft };
}

async function fromFile(groupId: number, csv: string) {
  const answer = await service.call('POST', '/api/public/v2/dataset-versions/from-file', {
    body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: base64(csv) },
  });
  return answer;
}

const eventsOf = (datasetId: number) =>
  service.messaging.events
    .map((event) => event.detail as { event_type: string; details: Record<string, unknown> })
    .filter((event) => event.details.dataset_id === datasetId);

async function rawItem(key: { PK: string; SK: string }) {
  const { Item } = await m.dynamo.dynamo.send(
    new GetCommand({ TableName: m.dynamo.table(), Key: key, ConsistentRead: true }),
  );
  return Item;
}

async function objectKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of m.blobs.listObjectKeys(prefix)) keys.push(...page);
  return keys;
}

/** A file draft whose job message was "lost": the test delivers it itself. */
async function pendingFileJob(csv: string) {
  const { group, draft } = await newGroup();
  const jobId = `job-${names}`;
  const fileKey = `uploads/${service.workspaceId}/${jobId}/a.csv`;
  await m.blobs.putObject(fileKey, csv, 'text/csv');
  const job = {
    id: jobId,
    type: 'file' as const,
    status: 'pending' as const,
    startedAt: Date.now(),
    fileKey,
    fileKind: 'csv' as const,
  };
  expect(await m.drafts.claimDraft(draft, { ...job, ownsDraft: true })).toBe(true);
  const message = {
    v: 1,
    type: 'dataset.file',
    workspaceId: service.workspaceId,
    datasetId: draft.id,
    jobId,
  };
  return { group, draft, message, fileKey };
}

describe('version numbers', () => {
  it('gives a dataset the same number however often it asks, and the next dataset the next one', async () => {
    const { group } = await newGroup();
    const reserve = (datasetId: number) =>
      m.repository.reserveVersionNumber(service.workspaceId, group.id, datasetId);

    expect(await reserve(101)).toBe(1);
    expect(await reserve(101)).toBe(1);
    expect(await reserve(102)).toBe(2);
    expect(await reserve(102)).toBe(2);
    expect(await reserve(103)).toBe(3);
  });

  it('numbers the versions of one group 1, 2, 3 while groups count apart', async () => {
    const a = await newGroup();
    const b = await newGroup();
    const numbers: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < 3; i++) {
      for (const [name, { group }] of Object.entries({ a, b })) {
        const answer = await fromFile(group.id, `n\n${i}\n`);
        await service.messaging.idle();
        numbers[name]!.push(eventsOf(answer.body.dataset_id)[0]!.details.dataset_version_number as number);
      }
    }

    expect(numbers).toEqual({ a: [1, 2, 3], b: [1, 2, 3] });
  });
});

describe('one draft per group', () => {
  it('lets exactly one of ten racing creators make the draft', async () => {
    const { group, draft } = await newGroup();
    await m.drafts.discardDraft(draft);

    const results = await Promise.allSettled(
      Array.from({ length: 10 }, async () =>
        m.drafts.createDraft(m.drafts.newDraft(group, await m.ids.nextId('dataset'), 1, 'empty')),
      ),
    );

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.map((r) => (r as PromiseRejectedResult).reason.status)).toEqual(Array(9).fill(409));
    const datasets = await m.repository.queryDatasets(service.workspaceId, { groupId: group.id });
    expect(datasets).toHaveLength(1);
  });

  it('takes over a marker left by a crash once it is stale, not before', async () => {
    const { group, draft } = await newGroup();
    await m.drafts.discardDraft(draft);
    const marker = m.keys.draftMarkerKey(service.workspaceId, group.id);
    const putMarker = (createdAt: number) =>
      m.dynamo.dynamo.send(
        new PutCommand({ TableName: m.dynamo.table(), Item: { ...marker, datasetId: 999_999, createdAt } }),
      );
    const fresh = () => m.drafts.newDraft(group, 0, 1, 'empty');

    await putMarker(Date.now());
    await expect(
      m.drafts.createDraft({ ...fresh(), id: await m.ids.nextId('dataset') }),
    ).rejects.toMatchObject({ status: 409 });
    await putMarker(Date.now() - 5 * 60_000);
    const next = { ...fresh(), id: await m.ids.nextId('dataset') };
    await m.drafts.createDraft(next);

    expect((await m.drafts.findDraft(service.workspaceId, group.id))?.id).toBe(next.id);
  });

  it('treats an expired job draft as gone and removes it with its objects', async () => {
    const { group, draft, fileKey } = await pendingFileJob('a\n1\n');
    const leftover = `${m.keys.datasetPrefix(service.workspaceId, draft.id)}job-x/rows-000001.jsonl`;
    await m.blobs.putObject(leftover, '{}\n');
    await m.dynamo.dynamo.send(
      new UpdateCommand({
        TableName: m.dynamo.table(),
        Key: m.keys.datasetKey(service.workspaceId, draft.id),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );

    expect(await m.drafts.findDraft(service.workspaceId, group.id)).toBeUndefined();
    const answer = await service.call('POST', '/api/public/v2/dataset-versions/create-draft', {
      body: { dataset_group_id: group.id },
    });

    expect(answer.status).toBe(201);
    expect(await rawItem(m.keys.datasetKey(service.workspaceId, draft.id))).toBeUndefined();
    expect(await objectKeys(m.keys.datasetPrefix(service.workspaceId, draft.id))).toEqual([]);
    await m.blobs.deleteObject(fileKey);
  });
});

describe('a failing job seen from GET /datasets/{id}', () => {
  it('answers its draft as removed, with the reason, from the moment the job fails (before the failure is recorded apart)', async () => {
    const { draft, fileKey } = await pendingFileJob('a\n1,2\n');
    const reason = 'The CSV row 1 (line 2) has 2 fields';
    // What the job has written when it has just failed: the draft marked failing and expired at once.
    await m.dynamo.dynamo.send(
      new UpdateCommand({
        TableName: m.dynamo.table(),
        Key: m.keys.datasetKey(service.workspaceId, draft.id),
        UpdateExpression: 'SET jobStatus = :failing, jobError = :reason, expiresAt = :now',
        ExpressionAttributeValues: {
          ':failing': 'failing',
          ':reason': reason,
          ':now': Math.floor(Date.now() / 1000) - 1,
        },
      }),
    );
    const answer = await service.call('GET', `/api/public/v2/datasets/${draft.id}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.dataset).toMatchObject({
      id: draft.id,
      is_deleted: true,
      version_number: -1,
      job_status: 'FAILED',
      job_error: reason,
    });
    await m.blobs.deleteObject(fileKey);
  });
});

describe('external ids of a group', () => {
  it('takes over a mapping left by a create that crashed once it is stale, not before', async () => {
    const ws = service.workspaceId;
    const claimAt = (at: number, groupId: number, externalId: string) => {
      vi.spyOn(Date, 'now').mockReturnValueOnce(at);
      return m.externalIds.attachExternalId(ws, 'dataset_group', groupId, {
        source: 'crash',
        external_id: externalId,
      });
    };
    const create = (externalId: string) =>
      m.groups.createDatasetGroup(ws, 1, {
        name: `crashed-${externalId}`,
        folderId: null,
        externalIds: [{ source: 'crash', external_id: externalId }],
      });
    const longAgo = Date.now() - m.externalIds.CLAIM_GRACE_MS - 1000;
    const { group: live } = await newGroup();

    await claimAt(Date.now(), 999_001, 'fresh');
    await claimAt(longAgo, 999_002, 'stale');
    await claimAt(longAgo, live.id, 'owned');

    await expect(create('fresh')).rejects.toMatchObject({ status: 409 });
    await expect(create('owned')).rejects.toMatchObject({ status: 409 });
    const { group } = await create('stale');
    expect(
      await m.externalIds.findExternalIdOwner(ws, 'dataset_group', { source: 'crash', external_id: 'stale' }),
    ).toBe(group.id);
  });
});

describe('job redelivery', () => {
  it('yields one version and one event when a message is processed twice, in turn or at once', async () => {
    const { handler } = await import('#functions/workers/dataset-file-job.ts');
    const first = await pendingFileJob('a\n1\n2\n');
    const second = await pendingFileJob('a\n1\n2\n');

    expect(await handler(sqsEvent({ id: 'm-1', body: first.message }))).toEqual({ batchItemFailures: [] });
    expect(await handler(sqsEvent({ id: 'm-1', body: first.message, receiveCount: 2 }))).toEqual({
      batchItemFailures: [],
    });
    const together = await Promise.all([
      handler(sqsEvent({ id: 'm-2', body: second.message })),
      handler(sqsEvent({ id: 'm-2', body: second.message })),
    ]);

    expect(together).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    for (const { group, draft } of [first, second]) {
      const datasets = await m.repository.queryDatasets(service.workspaceId, { groupId: group.id });
      expect(datasets.map((d) => [d.id, d.versionNumber, d.rowCount, d.job?.status])).toEqual([
        [draft.id, 1, 2, 'done'],
      ]);
      expect((await m.repository.getGroup(service.workspaceId, group.id))?.lastVersion).toBe(1);
    }
    expect(eventsOf(first.draft.id)).toHaveLength(1);
    // Two workers at once may both announce (at least once); never a second version.
    expect(eventsOf(second.draft.id).length).toBeGreaterThanOrEqual(1);
  });

  it('resumes after a crash between installing the version and sending its event', async () => {
    const { draft, message, group } = await pendingFileJob('a\n1\n');
    let crashes = 1;
    const flaky = {
      ...m.fileJob.fileJob,
      successEvent: (
        dataset: Parameters<NonNullable<typeof m.fileJob.fileJob.successEvent>>[0],
        job: never,
      ) => {
        if (crashes-- > 0) throw new Error('crash before the event');
        return m.fileJob.fileJob.successEvent!(dataset, job);
      },
    };

    await expect(m.lifecycle.runDatasetJob(flaky, message as never, false)).rejects.toThrow('crash');
    const between = await m.repository.getDataset(service.workspaceId, draft.id);
    await m.lifecycle.runDatasetJob(flaky, message as never, false);

    expect(between).toMatchObject({ versionNumber: 1, job: { status: 'finalized' } });
    expect(await m.repository.getDataset(service.workspaceId, draft.id)).toMatchObject({
      versionNumber: 1,
      job: { status: 'done' },
    });
    expect(eventsOf(draft.id).map((e) => e.details)).toEqual([
      { dataset_id: draft.id, dataset_version_number: 1 },
    ]);
    expect(await m.drafts.findDraft(service.workspaceId, group.id)).toBeUndefined();
  });
});

describe('poison messages', () => {
  it('dead-letters a job that keeps failing after maxReceiveCount, with its draft removed and the failure sent', async () => {
    const errors = expectErrorLogs();
    const run = vi.spyOn(m.fileJob.fileJob, 'run').mockRejectedValue(new Error('S3 is on fire'));
    const { group, draft } = await newGroup();
    const letters = service.messaging.deadLetters.length;
    const uploads = await objectKeys(`uploads/${service.workspaceId}/`);

    const answer = await fromFile(group.id, 'a\n1\n');
    await service.messaging.idle();

    expect(answer.status).toBe(201);
    expect(run).toHaveBeenCalledTimes(m.jobs.DATASET_QUEUES.file.maxReceiveCount);
    const dead = service.messaging.deadLetters.slice(letters);
    expect(dead).toMatchObject([{ queue: 'dataset-file-jobs', receiveCount: 3 }]);
    expect(JSON.parse(dead[0]!.body)).toMatchObject({ datasetId: draft.id });
    expect(eventsOf(draft.id)).toEqual([
      expect.objectContaining({
        event_type: 'dataset_version_created_by_file_failed',
        details: { dataset_id: draft.id, error_message: expect.stringMatching(/internal error/) },
      }),
    ]);
    expect(await rawItem(m.keys.datasetKey(service.workspaceId, draft.id))).toBeUndefined();
    expect(await m.drafts.findDraft(service.workspaceId, group.id)).toBeUndefined();
    expect(await objectKeys(`uploads/${service.workspaceId}/`)).toEqual(uploads);
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });

  it('dead-letters a malformed message without touching anything', async () => {
    const errors = expectErrorLogs();
    const { sendJob } = await import('#shared/platform/jobs.ts');
    const letters = service.messaging.deadLetters.length;
    const items = await service.countItems();

    await sendJob('dataset-copy-jobs', { v: 2, type: 'dataset.copy', datasetId: 'x' });
    await service.messaging.idle();

    expect(service.messaging.deadLetters.slice(letters)).toMatchObject([
      { queue: 'dataset-copy-jobs', receiveCount: 3 },
    ]);
    expect(await service.countItems()).toBe(items);
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });

  it('reports only the failing record of a batch', async () => {
    const { handler } = await import('#functions/workers/dataset-file-job.ts');
    const good = await pendingFileJob('a\n1\n');
    const event = sqsEvent({ id: 'good', body: good.message }, { id: 'bad', body: { nonsense: true } });

    const result = await handler(event);

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(await m.repository.getDataset(service.workspaceId, good.draft.id)).toMatchObject({
      versionNumber: 1,
    });
  });
});

describe('a job that cannot be sent', () => {
  it('answers 500 and leaves neither the draft nor the uploaded file', async () => {
    const errors = expectErrorLogs();
    const { group, draft } = await newGroup();
    const sqs = mockClient(SQSClient);
    sqs.on(SendMessageCommand).rejects(new Error('queue unavailable'));
    const objects = await service.countObjects();
    try {
      const answer = await fromFile(group.id, 'a\n1\n');

      expect(answer.status).toBe(500);
    } finally {
      sqs.restore();
    }
    expect(await rawItem(m.keys.datasetKey(service.workspaceId, draft.id))).toBeUndefined();
    expect(await service.countObjects()).toBe(objects);
    // The group can get a draft again at once.
    expect((await fromFile(group.id, 'a\n1\n')).status).toBe(201);
    await service.messaging.idle();
    expect(errors).toHaveBeenCalledWith('Unhandled error', expect.anything());
    errors.mockRestore();
  });
});

describe('from-filter-params on a reused draft', () => {
  it('hands the draft back untouched when the job fails for good, and says so', async () => {
    const errors = expectErrorLogs();
    const logged = await service.call('POST', '/log-request', { body: logRequestBody() });
    const { group } = await newGroup();
    const file = await fromFile(group.id, 'q\nkept\n');
    await service.messaging.idle();
    const copy = await service.call('POST', '/api/public/v2/dataset-versions/create-draft', {
      body: { dataset_group_id: group.id, source_dataset_id: file.body.dataset_id },
    });
    await service.messaging.idle();
    const { filterJob } = await import('#shared/datasets/filter-job.ts');
    vi.spyOn(filterJob, 'run').mockRejectedValue(new Error('boom'));

    const answer = await service.call('POST', '/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: group.id, request_log_ids: [logged.body.id] },
    });
    await service.messaging.idle();

    expect(answer.body.dataset_id).toBe(copy.body.draft_dataset_id);
    const draft = await m.drafts.findDraft(service.workspaceId, group.id);
    expect(draft).toMatchObject({ id: copy.body.draft_dataset_id, versionNumber: -1, rowCount: 1 });
    expect(draft?.job).toBeUndefined();
    expect(draft?.filterParams).toBeUndefined();
    expect(eventsOf(draft!.id).map((e) => e.event_type)).toEqual([
      'dataset_version_created_from_filter_params_failed',
    ]);
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });

  it('reuses a draft whose job outlived its lease', async () => {
    const { group, draft } = await newGroup();
    const stale = { id: 'crashed', type: 'filter' as const, status: 'pending' as const, ownsDraft: false };
    const lease = m.jobs.jobLeaseSeconds('filter') * 1000;
    expect(await m.drafts.claimDraft(draft, { ...stale, startedAt: Date.now() - lease - 1000 })).toBe(true);
    const logged = await service.call('POST', '/log-request', { body: logRequestBody() });

    const answer = await service.call('POST', '/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: group.id, request_log_ids: [logged.body.id] },
    });
    await service.messaging.idle();

    expect(answer.status).toBe(201);
    expect(answer.body.dataset_id).toBe(draft.id);
    expect(eventsOf(draft.id)[0]).toMatchObject({ details: { rows_added: 1, dataset_version_number: 1 } });
  });
});

describe('save-draft', () => {
  const save = (groupId: number) =>
    service.call('POST', '/api/public/v2/dataset-versions/save-draft', {
      body: { dataset_group_id: groupId },
    });

  it('refuses a draft a job is building (409 draft_busy) and leaves it to the job', async () => {
    const { group, draft, message } = await pendingFileJob('a\n1\n');

    const answer = await save(group.id);
    await m.lifecycle.runDatasetJob(m.fileJob.fileJob, message as never, false);

    expect(answer).toMatchObject({ status: 409, body: { error: 'draft_busy' } });
    expect(await m.repository.getDataset(service.workspaceId, draft.id)).toMatchObject({
      versionNumber: 1,
      job: { status: 'done' },
    });
  });

  it('takes the number a crashed save reserved for the draft, leaving no gap', async () => {
    const { group, draft } = await newGroup();
    expect(await m.repository.reserveVersionNumber(service.workspaceId, group.id, draft.id)).toBe(1);

    const answer = await save(group.id);

    expect(answer.body).toMatchObject({ draft_dataset_id: draft.id, version_number: 1 });
    expect((await m.repository.getGroup(service.workspaceId, group.id))?.lastVersion).toBe(1);
  });

  it('saves a reused draft whose job outlived its lease, and takes the job off it', async () => {
    const { group, draft } = await newGroup();
    const lease = m.jobs.jobLeaseSeconds('filter') * 1000;
    const stale = { id: 'crashed', type: 'filter' as const, status: 'pending' as const, ownsDraft: false };
    expect(
      await m.drafts.claimDraft(
        draft,
        { ...stale, startedAt: Date.now() - lease - 1000 },
        { filterParams: '{}' },
      ),
    ).toBe(true);

    const answer = await save(group.id);

    expect(answer.status).toBe(202);
    const saved = await m.repository.getDataset(service.workspaceId, draft.id);
    expect(saved).toMatchObject({ versionNumber: 1 });
    expect(saved?.job).toBeUndefined();
    expect(saved?.filterParams).toBeUndefined();
    expect(await m.drafts.findDraft(service.workspaceId, group.id)).toBeUndefined();
  });
});

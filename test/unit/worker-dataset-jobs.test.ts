import { Readable } from 'node:stream';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '#functions/workers/dataset-file-job.ts';
import { datasetJobHandler, type JobDefinition } from '#shared/datasets/job-lifecycle.ts';
import { datasetKey, draftMarkerKey, groupKey } from '#shared/datasets/keys.ts';
import { DEAD_LETTERED, expectErrorLogs } from '#test/support/logs.ts';
import { sqsEvent } from '#test/support/sqs.ts';

/**
 * The from-file worker against mocked AWS clients: the file streamed from S3 into row chunks, the
 * version installed with conditional writes, the event put on the bus in the webhook envelope, partial
 * batch failures, and redelivery of a job that has already ended.
 */
process.env.TABLE_NAME = 'table';
process.env.BUCKET_NAME = 'bucket';
process.env.EVENT_BUS_NAME = 'bus';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const events = mockClient(EventBridgeClient);
/** A job's events are made by no user. */
const NO_USER = { user_id: null, user_name: null, user_email: null };
afterAll(() => {
  ddb.restore();
  s3.restore();
  events.restore();
});

const WS = 7;
const GROUP = 3;
const DATASET = 42;
const JOB = 'job-1';
const FILE_KEY = `uploads/${WS}/u-1/eval.csv`;

function datasetItem(overrides: Record<string, unknown> = {}) {
  return {
    ...datasetKey(WS, DATASET),
    id: DATASET,
    workspaceId: WS,
    groupId: GROUP,
    groupName: 'evals',
    versionNumber: -1,
    userId: 1,
    createdAt: 1,
    updatedAt: 1,
    columns: [],
    rowCount: 0,
    origin: 'file',
    jobId: JOB,
    jobType: 'file',
    jobStatus: 'pending',
    jobStartedAt: Date.now(),
    jobOwnsDraft: true,
    jobFileKey: FILE_KEY,
    jobFileKind: 'csv',
    jobFileEtag: '"etag-1"',
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

const message = (datasetId = DATASET) => ({
  v: 1,
  type: 'dataset.file',
  workspaceId: WS,
  datasetId,
  jobId: JOB,
});

/** The file, as S3 streams it: in small pieces, a quoted field split across two of them. */
function fileStream(text: string) {
  const bytes = Buffer.from(text);
  const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 19), bytes.subarray(19)];
  return { Body: Readable.from(pieces) as never, ContentLength: bytes.length };
}

const putKeys = () => s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key);

beforeEach(() => {
  ddb.reset();
  s3.reset();
  events.reset();
  ddb.on(GetCommand).resolves({ Item: datasetItem() });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(UpdateCommand, { Key: groupKey(WS, GROUP) }).resolves({ Attributes: { lastVersion: 4 } });
  ddb.on(DeleteCommand).resolves({});
  s3.on(GetObjectCommand).resolves(fileStream('question,answer\n"What, is ""it""?",42\nfoo,"two\nlines"\n'));
  s3.on(PutObjectCommand).resolves({});
  s3.on(DeleteObjectCommand).resolves({});
  s3.on(ListObjectsV2Command).resolves({ Contents: [] });
  events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
});

describe('from-file worker', () => {
  it('streams the file from S3 into a row chunk (rows as arrays), installs the next version and puts the event', async () => {
    const result = await handler(sqsEvent({ id: 'm-1', body: message() }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(s3).toHaveReceivedCommandWith(GetObjectCommand, {
      Bucket: 'bucket',
      Key: FILE_KEY,
      IfMatch: '"etag-1"',
    });
    expect(putKeys()).toEqual([
      `datasets/${WS}/${DATASET}/${JOB}/rows-000001.jsonl`,
      `datasets/${WS}/${DATASET}/${JOB}/manifest.json`,
    ]);
    const chunk = String(s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Body);
    expect(
      chunk
        .trim()
        .split('\n')
        .flatMap((line) => JSON.parse(line)),
    ).toEqual([
      ['What, is "it"?', '42'],
      ['foo', 'two\nlines'],
    ]);
    const manifest = JSON.parse(String(s3.commandCalls(PutObjectCommand)[1]!.args[0].input.Body));
    expect(manifest).toMatchObject({ columns: ['question', 'answer'], layouts: [[0, 1]], rowCount: 2 });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: datasetKey(WS, DATASET),
      ConditionExpression: '#jobId = :job AND #jobStatus = :pending',
      ExpressionAttributeValues: expect.objectContaining({
        ':set_versionNumber': 4,
        ':set_rowCount': 2,
        ':set_columns': ['question', 'answer'],
        ':set_jobStatus': 'finalized',
      }),
    });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: draftMarkerKey(WS, GROUP) });
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 1);
    const entry = events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry).toMatchObject({
      EventBusName: 'bus',
      Source: 'promptops',
      DetailType: 'dataset_version_created_by_file',
    });
    expect(JSON.parse(entry.Detail!)).toEqual({
      event_type: 'dataset_version_created_by_file',
      details: { dataset_id: DATASET, dataset_version_number: 4 },
      workspace_id: WS,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      event_id: expect.stringMatching(/^ev_/),
      ...NO_USER,
    });
    expect(s3).toHaveReceivedCommandWith(DeleteObjectCommand, { Key: FILE_KEY });
  });

  it('reports only the failing record of a batch', async () => {
    ddb.on(GetCommand, { Key: datasetKey(WS, 99) }).rejects(new Error('throttled'));

    const result = await handler(
      sqsEvent({ id: 'ok', body: message() }, { id: 'fails', body: message(99) }, { id: 'junk', body: 'x' }),
    );

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'fails' }, { itemIdentifier: 'junk' }] });
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 1);
  });

  it('does nothing for a job that has already ended (redelivery)', async () => {
    ddb.on(GetCommand).resolves({ Item: datasetItem({ jobStatus: 'done', versionNumber: 4 }) });

    const result = await handler(sqsEvent({ id: 'again', body: message(), receiveCount: 2 }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(s3.calls()).toHaveLength(0);
    expect(events.calls()).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('does nothing when another job holds the draft or the draft is gone', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: datasetItem({ jobId: 'job-2' }) })
      .resolves({});

    const result = await handler(sqsEvent({ id: 'a', body: message() }, { id: 'b', body: message() }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(s3.calls()).toHaveLength(0);
    expect(events.calls()).toHaveLength(0);
  });

  it('finishes a job found finalized: marker, event, done, without redoing the work', async () => {
    ddb
      .on(GetCommand)
      .resolves({ Item: datasetItem({ jobStatus: 'finalized', versionNumber: 4, rowCount: 2 }) });

    await handler(sqsEvent({ id: 'resume', body: message(), receiveCount: 2 }));

    expect(s3).not.toHaveReceivedCommand(GetObjectCommand);
    expect(ddb).not.toHaveReceivedCommandWith(UpdateCommand, { Key: groupKey(WS, GROUP) });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: draftMarkerKey(WS, GROUP) });
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 1);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      ExpressionAttributeValues: expect.objectContaining({ ':set_jobStatus': 'done' }),
    });
  });

  it('removes the draft of a bad file, sends the failure event, and does not retry', async () => {
    s3.on(GetObjectCommand).resolves(fileStream('a,b\n1,2,3\n'));

    const result = await handler(sqsEvent({ id: 'bad', body: message() }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: datasetKey(WS, DATASET),
      ExpressionAttributeValues: expect.objectContaining({ ':set_jobStatus': 'failing' }),
    });
    const detail = JSON.parse(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!);
    expect(detail).toMatchObject({
      event_type: 'dataset_version_created_by_file_failed',
      details: { dataset_id: DATASET, error_message: expect.stringContaining('row 1') },
    });
    expect(s3).toHaveReceivedCommandWith(ListObjectsV2Command, { Prefix: `datasets/${WS}/${DATASET}/` });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: draftMarkerKey(WS, GROUP) });
    expect(ddb).not.toHaveReceivedCommandWith(UpdateCommand, { Key: groupKey(WS, GROUP) });
  });

  it('fails a JSON file nested 10,000 deep at once as a bad file, saying why (no stack overflow, no retry)', async () => {
    ddb.on(GetCommand).resolves({ Item: datasetItem({ jobFileKind: 'json' }) });
    s3.on(GetObjectCommand).resolves(fileStream(`[{"a": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`));

    const result = await handler(sqsEvent({ id: 'deep', body: message(), receiveCount: 1 }));

    expect(result).toEqual({ batchItemFailures: [] });
    const detail = JSON.parse(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!);
    expect(detail).toMatchObject({
      event_type: 'dataset_version_created_by_file_failed',
      details: {
        dataset_id: DATASET,
        error_message: expect.stringContaining('Row 1 of the JSON array is nested more than 256 levels deep'),
      },
    });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(putKeys().filter((key) => key?.includes('/chunks/'))).toEqual([]);
  });

  it('retries a transient failure, and on the last receive cleans up, tells, and fails to the DLQ', async () => {
    const errors = expectErrorLogs();
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('slow down'), { name: 'SlowDown' }));

    const early = await handler(sqsEvent({ id: 'try-1', body: message(), receiveCount: 1 }));
    expect(early).toEqual({ batchItemFailures: [{ itemIdentifier: 'try-1' }] });
    expect(events.calls()).toHaveLength(0);
    expect(ddb).not.toHaveReceivedCommand(DeleteCommand);

    const last = await handler(sqsEvent({ id: 'try-3', body: message(), receiveCount: 3 }));

    expect(last).toEqual({ batchItemFailures: [{ itemIdentifier: 'try-3' }] });
    const detail = JSON.parse(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!);
    expect(detail.details.error_message).toMatch(/internal error/);
    expect(detail.details.error_message).not.toContain('slow down');
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });

  it('fails a file that was replaced after it was accepted (ETag changed), without retrying', async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('precondition'), { name: 'PreconditionFailed' }));

    const result = await handler(sqsEvent({ id: 'changed', body: message() }));

    expect(result).toEqual({ batchItemFailures: [] });
    const detail = JSON.parse(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!);
    expect(detail.details.error_message).toMatch(/replaced/);
  });
});

describe('a job failing after its work is done', () => {
  const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
  /** The conditional write that installs the version (pending -> finalized). */
  const install = {
    Key: datasetKey(WS, DATASET),
    ExpressionAttributeValues: { ':set_jobStatus': 'finalized' },
  };
  const eventTypes = () =>
    events
      .commandCalls(PutEventsCommand)
      .map(
        (call) => JSON.parse(call.args[0].input.Entries![0]!.Detail!) as { event_type: string; details: any },
      );

  it('retries when installing the version is throttled before the last receive', async () => {
    ddb.on(UpdateCommand, install).rejects(throttled());

    const result = await handler(sqsEvent({ id: 'try-1', body: message(), receiveCount: 1 }));

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'try-1' }] });
    expect(events.calls()).toHaveLength(0);
    expect(ddb).not.toHaveReceivedCommand(DeleteCommand);
  });

  it('on the last receive: sends the failure event, removes the draft, and dead-letters the message', async () => {
    const errors = expectErrorLogs();
    ddb.on(UpdateCommand, install).rejects(throttled());

    const result = await handler(sqsEvent({ id: 'try-3', body: message(), receiveCount: 3 }));

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'try-3' }] });
    expect(eventTypes()).toEqual([
      {
        event_type: 'dataset_version_created_by_file_failed',
        details: { dataset_id: DATASET, error_message: expect.stringMatching(/internal error/) },
        workspace_id: WS,
        timestamp: expect.any(String),
        event_id: expect.stringMatching(/^ev_/),
        ...NO_USER,
      },
    ]);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: datasetKey(WS, DATASET),
      ConditionExpression: '#jobId = :job AND #jobStatus = :pending',
      ExpressionAttributeValues: expect.objectContaining({ ':set_jobStatus': 'failing' }),
    });
    expect(s3).toHaveReceivedCommandWith(ListObjectsV2Command, { Prefix: `datasets/${WS}/${DATASET}/` });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: draftMarkerKey(WS, GROUP) });
    expect(s3).toHaveReceivedCommandWith(DeleteObjectCommand, { Key: FILE_KEY });
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });

  it('fails at once, without retrying, when installing finds the group gone (a permanent error)', async () => {
    ddb
      .on(UpdateCommand, { Key: groupKey(WS, GROUP) })
      .rejects(Object.assign(new Error('condition'), { name: 'ConditionalCheckFailedException' }));
    ddb.on(GetCommand, { Key: groupKey(WS, GROUP) }).resolves({});

    const result = await handler(sqsEvent({ id: 'first', body: message(), receiveCount: 1 }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventTypes().map((e) => [e.event_type, e.details.error_message])).toEqual([
      ['dataset_version_created_by_file_failed', 'The dataset group no longer exists'],
    ]);
    expect(ddb).toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
  });

  it('finishes as a success, with no failure event, when the install landed but its answer was lost', async () => {
    ddb.on(UpdateCommand, install).rejects(throttled());
    ddb
      .on(GetCommand, { Key: datasetKey(WS, DATASET) })
      .resolvesOnce({ Item: datasetItem() })
      .resolves({ Item: datasetItem({ jobStatus: 'finalized', versionNumber: 4, rowCount: 2 }) });

    const result = await handler(sqsEvent({ id: 'try-3', body: message(), receiveCount: 3 }));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventTypes().map((e) => e.event_type)).toEqual(['dataset_version_created_by_file']);
    expect(ddb).not.toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      ExpressionAttributeValues: expect.objectContaining({ ':set_jobStatus': 'done' }),
    });
  });

  it('hands a reused draft back as it was when the job fails for good after its work', async () => {
    const errors = expectErrorLogs();
    const job: JobDefinition = {
      type: 'filter',
      makesVersion: true,
      run: async () => ({ manifestKey: 'm', columns: ['a'], rowCount: 1, rowsAdded: 1 }),
      failureEvent: (dataset, errorMessage) => ({
        type: 'dataset_version_created_from_filter_params_failed',
        details: { dataset_id: dataset.id, error_message: errorMessage },
      }),
    };
    ddb.on(GetCommand).resolves({
      Item: datasetItem({ jobType: 'filter', jobOwnsDraft: false, expiresAt: undefined, rowCount: 3 }),
    });
    ddb.on(UpdateCommand, install).rejects(throttled());

    const result = await datasetJobHandler(job)(sqsEvent({ id: 'last', body: message(), receiveCount: 3 }));

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'last' }] });
    expect(eventTypes().map((e) => e.event_type)).toEqual([
      'dataset_version_created_from_filter_params_failed',
    ]);
    expect(ddb).not.toHaveReceivedCommandWith(DeleteCommand, { Key: datasetKey(WS, DATASET) });
    expect(s3).toHaveReceivedCommandWith(ListObjectsV2Command, {
      Prefix: `datasets/${WS}/${DATASET}/${JOB}/`,
    });
    // Released: the job's attributes removed, only while this job holds the draft.
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: datasetKey(WS, DATASET),
      ConditionExpression: '#jobId = :job',
      UpdateExpression: expect.stringContaining('REMOVE #jobId'),
    });
    expect(errors).toHaveBeenCalledWith(DEAD_LETTERED, expect.anything());
    errors.mockRestore();
  });
});

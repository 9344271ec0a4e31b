import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDatasetGroup } from '#shared/datasets/groups.ts';
import { newUploadKey } from '#shared/datasets/uploads.ts';
import { createVersionFromFile } from '#shared/datasets/versions.ts';
import type { AuthContext } from '#shared/platform/auth-context.ts';
import { getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { forEachLimited, limiter } from '#shared/platform/concurrency.ts';
import { ENV } from '#shared/platform/config.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { AppError, notFound } from '#shared/platform/errors.ts';
import { sendJob } from '#shared/platform/jobs.ts';
import { claimLease, heldBy } from '#shared/platform/lease.ts';
import { logger } from '#shared/platform/logger.ts';
import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { RecordView } from '#shared/request-logs/filters/record-view.ts';
import { matchingRequestLogs, requestLogQuerySchema } from '#shared/request-logs/query.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { requestLogsByIds } from '#shared/request-logs/repository.ts';
import { planReplay, replayUntil } from './replay.ts';
import { checkOverrides, type ReplayOverrides, replayOverridesShape } from './schemas.ts';

/**
 * POST /api/public/v2/requests/replay-batch: the replays of many logs (named by id, or matching a search
 * filter), run by a job, whose result is a dataset version: one row per log with its input, the
 * original and replayed outputs, costs and latencies, so that an evaluation report can score old against
 * new. The version is written by the datasets module's own from-file job (a JSON file of the rows).
 *
 * The job holds the workspace's replay-batch lock while it calls providers: one batch of a workspace
 * runs at a time, REPLAY_BATCH_CONCURRENCY calls at once (default 4); a batch that finds the lock held
 * waits (its message comes back later). It works in slices of SLICE logs, recording each slice's rows in
 * S3 and its progress on the batch item (conditional on the progress it read), and hands over to a new
 * message before its own timeout. A redelivered slice may replay some logs twice (docs/replay.md).
 */
export const REPLAY_BATCH_QUEUE = {
  name: 'replay-batch-jobs',
  maxReceiveCount: 3,
  timeoutSeconds: 900,
} as const;
export const MAX_BATCH_LOGS = 1_000;
export const DEFAULT_BATCH_CONCURRENCY = 4;
const SLICE = 50;
/** A slice starts only with this much of the invocation left: a provider call may take 120 s. */
const SLICE_RESERVE_MS = 180_000;
/** How long a batch waits for the workspace's lock before trying again. */
const LOCK_RETRY_SECONDS = 30;

export function batchConcurrency(): number {
  const configured = Number(process.env[ENV.replayBatchConcurrency]);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_BATCH_CONCURRENCY;
}

export const replayBatchBodySchema = z
  .strictObject({
    request_log_ids: z.nullish(
      z.array(z.int().check(z.gte(1))).check(z.minLength(1), z.maxLength(MAX_BATCH_LOGS)),
    ),
    filter_group: requestLogQuerySchema.shape.filter_group,
    q: requestLogQuerySchema.shape.q,
    /** The dataset the rows go to (a new one); `replay-batch-<batch id>` by default. */
    dataset_name: z.nullish(wellFormedString().check(z.minLength(1), z.maxLength(512))),
    ...replayOverridesShape,
  })
  .check(
    z.superRefine((body, ctx) => {
      checkOverrides(body, ctx);
      const byFilter = body.filter_group != null || body.q != null;
      if (byFilter === (body.request_log_ids != null)) {
        ctx.addIssue({
          code: 'custom',
          path: ['request_log_ids'],
          message: 'give request_log_ids or a filter (filter_group, q), one of the two',
        });
      }
    }),
  );
export type ReplayBatchBody = z.output<typeof replayBatchBodySchema>;

type BatchStatus = 'QUEUED' | 'RUNNING' | 'COMPLETE' | 'FAILED';

interface BatchRecord {
  batchId: string;
  workspaceId: number;
  userId: number;
  status: BatchStatus;
  paramsKey: string;
  datasetGroupId: number;
  createdAt: number;
  /** Resolved by the job's first slice. */
  ids?: number[];
  nextIndex: number;
  replayed: number;
  failed: number;
  datasetId?: number;
  error?: string;
}

const batchKey = (workspaceId: number, batchId: string) => ({
  PK: `W#${workspaceId}#RB#${batchId}`,
  SK: 'RB',
});
const lockKey = (workspaceId: number) => ({ PK: `W#${workspaceId}#RBLOCK`, SK: 'LOCK' });
const batchPrefix = (workspaceId: number, batchId: string) => `replay-batches/${workspaceId}/${batchId}/`;

export const replayBatchJobMessageSchema = z.object({
  v: z.literal(1),
  type: z.literal('replay-batch'),
  workspaceId: z.int().check(z.positive()),
  batchId: z.string().check(z.minLength(1)),
});
export type ReplayBatchJobMessage = z.infer<typeof replayBatchJobMessageSchema>;

/** Starts a batch: its dataset group (a name taken is a 409), its parameters, its item, its job. */
export async function startReplayBatch(auth: AuthContext, body: ReplayBatchBody) {
  const batchId = randomUUID();
  const { group } = await createDatasetGroup(auth.workspaceId, auth.userId, {
    name: body.dataset_name ?? `replay-batch-${batchId}`,
    folderId: null,
  });
  const paramsKey = `${batchPrefix(auth.workspaceId, batchId)}params.json`;
  await putObject(paramsKey, JSON.stringify(body));
  const batch: BatchRecord = {
    batchId,
    workspaceId: auth.workspaceId,
    userId: auth.userId,
    status: 'QUEUED',
    paramsKey,
    datasetGroupId: group.id,
    createdAt: Date.now(),
    nextIndex: 0,
    replayed: 0,
    failed: 0,
  };
  await dynamo.send(
    new PutCommand({ TableName: table(), Item: { ...batchKey(auth.workspaceId, batchId), ...batch } }),
  );
  await sendBatchJob(batch);
  return toBatchView(batch);
}

const sendBatchJob = (batch: BatchRecord, delaySeconds?: number) =>
  sendJob(
    REPLAY_BATCH_QUEUE.name,
    { v: 1, type: 'replay-batch', workspaceId: batch.workspaceId, batchId: batch.batchId },
    { delaySeconds },
  );

async function getBatch(workspaceId: number, batchId: string): Promise<BatchRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: batchKey(workspaceId, batchId), ConsistentRead: true }),
  );
  return Item as BatchRecord | undefined;
}

/** GET /api/public/v2/requests/replay-batch/{batch_id}. */
export async function getReplayBatch(workspaceId: number, batchId: string) {
  const batch = await getBatch(workspaceId, batchId);
  if (!batch) throw notFound(`Replay batch ${batchId} not found`);
  return toBatchView(batch);
}

export const replayBatchViewSchema = z
  .object({
    success: z.literal(true),
    batch_id: z.string(),
    status: z.enum(['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED']),
    total: z
      .nullable(z.int())
      .clone()
      .register(z.globalRegistry, { description: 'Logs to replay; null until the job has resolved them' }),
    replayed: z.int(),
    failed: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'Replays whose provider call failed (logged as ERROR)' }),
    dataset_group_id: z.int(),
    dataset_id: z
      .nullable(z.int())
      .clone()
      .register(z.globalRegistry, { description: 'The dataset version of the rows, once COMPLETE' }),
    error_message: z.nullable(z.string()),
    created_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'ReplayBatch' });

function toBatchView(batch: BatchRecord): z.infer<typeof replayBatchViewSchema> {
  return {
    success: true,
    batch_id: batch.batchId,
    status: batch.status,
    total: batch.ids?.length ?? null,
    replayed: batch.replayed,
    failed: batch.failed,
    dataset_group_id: batch.datasetGroupId,
    dataset_id: batch.datasetId ?? null,
    error_message: batch.error ?? null,
    created_at: toIso(batch.createdAt),
  };
}

// ----------------------------------------------------------------------------------------------- the job

/** One delivery of a batch's message: waits for the lock, runs slices while time lasts, then hands over. */
export async function runReplayBatch(message: ReplayBatchJobMessage, deadline: number): Promise<void> {
  const batch = await getBatch(message.workspaceId, message.batchId);
  if (!batch || batch.status === 'COMPLETE' || batch.status === 'FAILED') return;
  const lock = await claimLease<{ attempt: number }>(lockKey(batch.workspaceId), {
    now: Date.now(),
    leaseMs: REPLAY_BATCH_QUEUE.timeoutSeconds * 1000,
    absentIsQueued: true,
  });
  if (!lock) {
    await sendBatchJob(batch, LOCK_RETRY_SECONDS);
    return;
  }
  try {
    await advance(batch, deadline);
  } finally {
    await releaseLock(batch.workspaceId, lock.attempt);
  }
}

async function advance(initial: BatchRecord, deadline: number): Promise<void> {
  let batch = initial;
  const params = JSON.parse(await getObjectText(batch.paramsKey)) as ReplayBatchBody;
  if (!batch.ids) {
    let ids: number[];
    try {
      ids = await resolveIds(batch.workspaceId, params);
    } catch (error) {
      // The filter was checked when the batch was accepted; a 4xx now (rules changed) will not go away.
      if (error instanceof AppError && error.status < 500) return fail(batch, error.message);
      throw error;
    }
    batch = await record(batch, { ids, status: 'RUNNING' });
  }
  const ids = batch.ids!;
  while (batch.nextIndex < ids.length) {
    if (deadline - Date.now() < SLICE_RESERVE_MS) {
      await sendBatchJob(batch);
      return;
    }
    const slice = ids.slice(batch.nextIndex, batch.nextIndex + SLICE);
    const rows = await replaySlice(batch.workspaceId, slice, params, deadline);
    await putObject(
      `${batchPrefix(batch.workspaceId, batch.batchId)}rows-${batch.nextIndex}.json`,
      JSON.stringify(rows),
    );
    batch = await record(batch, {
      nextIndex: batch.nextIndex + slice.length,
      replayed: batch.replayed + rows.length,
      failed: batch.failed + rows.filter((row) => row.replay_status === 'ERROR').length,
    });
  }
  await makeDataset(batch);
}

/** The logs a batch replays: the ids as given (the workspace's only), or the filter's first 1,000 matches. */
async function resolveIds(workspaceId: number, params: ReplayBatchBody): Promise<number[]> {
  const ids: number[] = [];
  const query = params.request_log_ids
    ? { request_log_ids: params.request_log_ids }
    : { filter_group: params.filter_group, q: params.q };
  for await (const records of matchingRequestLogs(workspaceId, query, MAX_BATCH_LOGS))
    for (const log of records) ids.push(log.id);
  return ids;
}

/** A dataset row: what an evaluation compares. */
export interface BatchRow {
  request_id: number;
  replay_id: number | null;
  input: unknown;
  input_variables: unknown;
  original_output: string;
  replayed_output: string;
  original_cost: number;
  replayed_cost: number;
  original_latency_ms: number;
  replayed_latency_ms: number;
  replay_status: string;
  replay_error: string | null;
}

async function replaySlice(
  workspaceId: number,
  ids: number[],
  overrides: ReplayOverrides,
  deadline: number,
): Promise<BatchRow[]> {
  const originals: RequestLogRecord[] = [];
  for await (const records of requestLogsByIds(workspaceId, ids)) originals.push(...records);
  const rows = new Array<BatchRow | undefined>(originals.length);
  // Provider calls are what the concurrency bounds; planning and writing overlap them.
  const providerCalls = limiter(batchConcurrency());
  await forEachLimited(originals, batchConcurrency() * 2, async (original, index) => {
    let replay: RequestLogRecord | undefined;
    let error: string | null = null;
    try {
      replay = await replayUntil(await planReplay(original, overrides), deadline, providerCalls);
    } catch (failure) {
      // A log the overrides cannot be applied to (another provider, a bound) is a row with its reason.
      if (!(failure instanceof AppError) || failure.status >= 500) throw failure;
      error = failure.message;
    }
    rows[index] = toRow(original, replay, error);
  });
  return rows.filter((row): row is BatchRow => row !== undefined);
}

const latency = (log: RequestLogRecord) => log.request_end_time - log.request_start_time;

function toRow(
  original: RequestLogRecord,
  replay: RequestLogRecord | undefined,
  error: string | null,
): BatchRow {
  return {
    request_id: original.id,
    replay_id: replay?.id ?? null,
    input: original.input,
    input_variables: original.prompt_input_variables,
    original_output: new RecordView(original).outputText,
    replayed_output: replay ? new RecordView(replay).outputText : '',
    original_cost: original.price,
    replayed_cost: replay?.price ?? 0,
    original_latency_ms: latency(original),
    replayed_latency_ms: replay ? latency(replay) : 0,
    replay_status: replay?.status ?? 'ERROR',
    replay_error: replay?.error_message ?? error,
  };
}

/** The rows of every slice as one JSON file, made a version of the batch's group by the from-file job. */
async function makeDataset(batch: BatchRecord): Promise<void> {
  const rows: BatchRow[] = [];
  for (let index = 0; index < batch.ids!.length; index += SLICE) {
    const key = `${batchPrefix(batch.workspaceId, batch.batchId)}rows-${index}.json`;
    rows.push(...(JSON.parse(await getObjectText(key)) as BatchRow[]));
  }
  const fileName = 'replay-batch.json';
  const fileKey = newUploadKey(batch.workspaceId, fileName);
  await putObject(fileKey, JSON.stringify(rows));
  const datasetId = await createVersionFromFile(
    { workspaceId: batch.workspaceId, userId: batch.userId },
    { groupId: batch.datasetGroupId, fileName, fileKey },
  );
  await record(batch, { status: 'COMPLETE', datasetId });
}

async function fail(batch: BatchRecord, reason: string): Promise<void> {
  await record(batch, { status: 'FAILED', error: reason });
}

/** Ends a batch whose job failed on its last delivery. */
export async function failReplayBatch(message: ReplayBatchJobMessage, reason: string): Promise<void> {
  const batch = await getBatch(message.workspaceId, message.batchId);
  if (batch && batch.status !== 'COMPLETE') await fail(batch, reason);
}

/** Writes progress, conditional on the progress read: a second worker on the same batch loses. */
async function record(batch: BatchRecord, change: Partial<BatchRecord>): Promise<BatchRecord> {
  const next = { ...batch, ...change };
  const names = Object.keys(change);
  await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: batchKey(batch.workspaceId, batch.batchId),
      UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
      ConditionExpression: '#read = :read',
      ExpressionAttributeNames: {
        ...Object.fromEntries(names.map((name) => [`#${name}`, name])),
        '#read': 'nextIndex',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(names.map((name) => [`:${name}`, change[name as keyof BatchRecord]])),
        ':read': batch.nextIndex,
      },
    }),
  );
  return next;
}

async function releaseLock(workspaceId: number, attempt: number): Promise<void> {
  const held = heldBy(attempt);
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: lockKey(workspaceId),
        UpdateExpression: 'SET #lstatus = :lqueued',
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: { ...held.values, ':lqueued': 'QUEUED' },
      }),
    );
  } catch (error) {
    // The lease lapses on its own.
    logger.warn('Could not release the replay-batch lock', { workspaceId, error: error as Error });
  }
}

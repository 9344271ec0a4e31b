import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, queueUrlEnv, requireEnv } from './config.ts';
import { withoutSdkLogger } from './sdk-clients.ts';

let sqs: { client: SQSClient; endpoint: string | undefined } | undefined;

/**
 * Sends a job message. Messages carry ids and pointers, never payloads; every message schema is
 * versioned (`v`) so that workers can accept old messages while new fields stay optional.
 */
type JobMessage = { v: number; type: string } & Record<string, unknown>;

function client(): SQSClient {
  // Made again when the endpoint changes: a local service restarted in the same process (tests).
  const endpoint = process.env[ENV.sqsEndpoint] || undefined;
  if (!sqs || sqs.endpoint !== endpoint)
    sqs = { client: withoutSdkLogger(new SQSClient({ endpoint })), endpoint };
  return sqs.client;
}

/** `delaySeconds` (at most 900, SQS's limit): the message becomes visible that much later. */
export async function sendJob(queue: string, message: JobMessage, options: { delaySeconds?: number } = {}) {
  await client().send(
    new SendMessageCommand({
      QueueUrl: requireEnv(queueUrlEnv(queue)),
      MessageBody: JSON.stringify(message),
      ...(options.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(options.delaySeconds)) } : {}),
    }),
  );
}

/** Entries of one SendMessageBatch call (SQS's limit). */
const BATCH_LIMIT = 10;

/**
 * Sends several job messages, ten per SendMessageBatch call; an entry SQS refuses is sent again once,
 * then the call throws (the caller's own retry sends them again: workers are idempotent).
 */
export async function sendJobs(queue: string, messages: readonly JobMessage[]): Promise<void> {
  const url = requireEnv(queueUrlEnv(queue));
  const chunks: JobMessage[][] = [];
  for (let i = 0; i < messages.length; i += BATCH_LIMIT) chunks.push(messages.slice(i, i + BATCH_LIMIT));
  await Promise.all(
    chunks.map(async (chunk) => {
      let entries = chunk.map((message, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify(message),
      }));
      for (let round = 0; round < 2 && entries.length; round++) {
        const result = await client().send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
        const failed = new Set((result.Failed ?? []).map((entry) => entry.Id));
        entries = entries.filter((entry) => failed.has(entry.Id));
      }
      if (entries.length) throw new Error(`SQS refused ${entries.length} messages for ${queue}`);
    }),
  );
}

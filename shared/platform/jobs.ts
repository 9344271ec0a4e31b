import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, queueUrlEnv, requireEnv } from './config.ts';

let sqs: SQSClient | undefined;

/**
 * Sends a job message. Messages carry ids and pointers, never payloads; every message schema is
 * versioned (`v`) so that workers can accept old messages while new fields stay optional.
 */
export async function sendJob(queue: string, message: { v: number; type: string } & Record<string, unknown>) {
  sqs ??= new SQSClient({ endpoint: process.env[ENV.sqsEndpoint] || undefined });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(queueUrlEnv(queue)),
      MessageBody: JSON.stringify(message),
    }),
  );
}

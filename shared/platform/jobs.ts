import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, queueUrlEnv, requireEnv } from './config.ts';

let sqs: { client: SQSClient; endpoint: string | undefined } | undefined;

/**
 * Sends a job message. Messages carry ids and pointers, never payloads; every message schema is
 * versioned (`v`) so that workers can accept old messages while new fields stay optional.
 */
export async function sendJob(queue: string, message: { v: number; type: string } & Record<string, unknown>) {
  // Made again when the endpoint changes: a local service restarted in the same process (tests).
  const endpoint = process.env[ENV.sqsEndpoint] || undefined;
  if (!sqs || sqs.endpoint !== endpoint) sqs = { client: new SQSClient({ endpoint }), endpoint };
  await sqs.client.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(queueUrlEnv(queue)),
      MessageBody: JSON.stringify(message),
    }),
  );
}

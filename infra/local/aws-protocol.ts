import type { ServerResponse } from 'node:http';

/**
 * What the local SQS, EventBridge and Secrets Manager (sqs-queues.ts, event-router.ts,
 * secrets-store.ts, served by messaging.ts) share of the AWS JSON protocols: the error answer, the
 * account in their ARNs and URLs, the batch limit.
 */
export const ACCOUNT = '000000000000';

/** Entries per SendMessageBatch, ChangeMessageVisibilityBatch and PutEvents call in AWS. */
export const MAX_BATCH_ENTRIES = 10;

/** An error answered the way the AWS JSON protocols do (`__type` and `message`, status 400). */
export class AwsError extends Error {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

export function entriesOf(input: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(input.Entries) ? (input.Entries as Record<string, unknown>[]) : [];
}

export function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

import type { SQSBatchResponse } from 'aws-lambda';

/** Fixture worker of the `workflow-node` queue that acknowledges every message unread: all are lost. */
export async function handler(): Promise<SQSBatchResponse> {
  return { batchItemFailures: [] };
}

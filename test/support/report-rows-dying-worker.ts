import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handler as realHandler } from '#functions/workers/report-rows.ts';
import { claimBatch } from '#shared/reports/run/batches.ts';

/**
 * Fixture worker of the `report-rows` queue that dies on every batch: it fans a run out as the real
 * worker does, then claims each batch and never finishes, as a process killed mid-batch. Its lease is
 * short, as if the restart came after it lapsed. `globalThis.reportBatchClaimed` is called once a batch
 * is held.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const starts = event.Records.filter((record) => JSON.parse(record.body).type === 'report-run-start');
  const rows = event.Records.filter((record) => JSON.parse(record.body).type === 'report-rows');
  if (starts.length) await realHandler({ Records: starts });
  for (const record of rows) {
    const message = JSON.parse(record.body);
    await claimBatch(message.ws, message.reportId, message.run, message.batch, Date.now(), 1);
  }
  if (rows.length) {
    (globalThis as { reportBatchClaimed?: () => void }).reportBatchClaimed?.();
    await new Promise(() => undefined);
  }
  return { batchItemFailures: [] };
}

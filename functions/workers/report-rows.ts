import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { REPORT_ROWS_QUEUE, reportRowsMessageSchema } from '#shared/reports/run/queue.ts';
import { defaultRowWorkerDeps, processReportRowsMessage } from '#shared/reports/run/worker.ts';

/**
 * Queue `report-rows`: the first message of a run (which sends one message per batch of rows) and the
 * batches. A record that throws is delivered again; on its last delivery its batch's cells are FAILED
 * instead, so that every run ends.
 */
export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) => {
    const message = reportRowsMessageSchema.parse(JSON.parse(record.body));
    await processReportRowsMessage(
      message,
      { receiveCount, maxReceiveCount: REPORT_ROWS_QUEUE.maxReceiveCount },
      await defaultRowWorkerDeps(),
    );
  },
  { maxReceiveCount: REPORT_ROWS_QUEUE.maxReceiveCount },
);

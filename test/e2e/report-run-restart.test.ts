import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_QUEUES } from '#infra/routes.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { compareColumn, reportOver } from '#test/support/reports.ts';

/**
 * A report run across a restart of the local service: the first service's row worker claims each batch
 * and dies holding it (its queue messages stay undone in the journal); the restarted service delivers
 * them again and the batches are taken over, so the run completes.
 */
const CSV = 'question,expected\nq1,q1\nq2,x\nq3,q3\nq4,x\nq5,q5\nq6,x\n';

/** The report both services run: one COMPARE column over a new group whose version 1 is CSV; its id. */
async function createReport(on: TestService) {
  return (await reportOver(on, CSV, { name: 'survivor', columns: [compareColumn('same')] })).report_id;
}

describe('a report run across a restart of the service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptops-report-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('completes: the batches a dying worker held are taken over when their messages come back', async () => {
    const dying = await startTestService({
      dataDir,
      jobQueues: {
        ...JOB_QUEUES,
        'report-rows': { ...JOB_QUEUES['report-rows']!, worker: 'test/support/report-rows-dying-worker.ts' },
      },
    });
    const claimed = new Promise<void>((resolve) => {
      (globalThis as { reportBatchClaimed?: () => void }).reportBatchClaimed = resolve;
    });
    let reportId: number;
    try {
      reportId = await createReport(dying);
      expect((await dying.call('POST', `/reports/${reportId}/run`)).status).toBe(201);
      await claimed;
      const running = await dying.call('GET', `/reports/${reportId}`);
      expect(running.body.status).toBe('RUNNING');
    } finally {
      await dying.stop();
    }

    const restarted = await startTestService({ dataDir });
    try {
      await restarted.messaging.idle();
      const done = await restarted.call('GET', `/reports/${reportId}`);
      expect(done.body).toMatchObject({
        status: 'COMPLETED',
        stats: { status_counts: { COMPLETED: 6, FAILED: 0, QUEUED: 0, RUNNING: 0 } },
      });
    } finally {
      await restarted.stop();
    }
  });
});

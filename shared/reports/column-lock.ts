import { setTimeout } from 'node:timers/promises';
import { AppError, conflict } from '#shared/platform/errors.ts';
import { updateItem } from '#shared/platform/items.ts';
import type { Condition } from '#shared/platform/lease.ts';
import { getHeadItem, getReport, reportFromItem, reportNotFound, reportRunning } from './head.ts';
import { reportKey } from './keys.ts';
import type { ReportRecord } from './records.ts';

/**
 * The column lock on the report head: `columnsRevision` (bumped by every column edit) and the lease of
 * the edit writing the columns (`columnsEditUntil`). A column edit takes it (withColumnsLocked); a run
 * starts only on the revision its snapshot read and with no lease held (`columnsUnlocked`, the
 * condition of beginRun).
 */
const RUNNING = 'RUNNING';

/** The condition of a run's start: the columns are at `revision` and no edit is writing them. */
export function columnsUnlocked(revision: number, nowMs: number): Required<Condition> {
  return {
    expression:
      '(attribute_not_exists(columnsRevision) OR columnsRevision = :revision) AND ' +
      '(attribute_not_exists(columnsEditUntil) OR columnsEditUntil < :nowMs)',
    names: {},
    values: { ':revision': revision, ':nowMs': nowMs },
  };
}

/**
 * A live report for a column edit, read consistently, with the `columnsRevision` its columns are at
 * (pass both to withColumnsLocked after reading the columns); a 404 when there is none.
 */
export async function reportForEdit(
  ws: number,
  reportId: number,
): Promise<{ report: ReportRecord; revision: number }> {
  const item = await getHeadItem(ws, reportId, true);
  const report = item && reportFromItem(item);
  if (!report || report.deleted) throw reportNotFound(reportId);
  return { report, revision: Number(item.columnsRevision ?? 0) };
}

/**
 * How long a column edit holds its lease (`columnsEditUntil`) at most: longer than any edit's writes take
 * (API Gateway ends a request after 29 s). A crashed edit blocks the next ones for that long at most.
 */
export const COLUMN_EDIT_LEASE_MS = 30_000;

/**
 * Rewrites a report's columns under its column lease: bumps `columnsRevision` from `revision` (the one
 * read before the columns were) and takes `columnsEditUntil`, on a live report whose latest run is not
 * RUNNING and whose columns no other edit is writing; runs `write`; then gives the lease up and bumps the
 * revision once more (whoever read the columns while they were being written plans again). The lease is
 * what makes the revision mean something: without it, an edit that read the bumped revision before the
 * edit that bumped it had written its columns would plan on stale columns (two columns of one name).
 * A run starts only on the revision its snapshot read and with no lease held (beginRun). A 409 when a
 * run is in progress or another edit came first (retryColumnEdit plans again), a 404 when the report
 * is gone.
 */
export async function withColumnsLocked<T>(
  ws: number,
  report: ReportRecord,
  revision: number,
  write: () => Promise<T>,
): Promise<T> {
  if (report.run?.status === RUNNING) throw reportRunning(report.id);
  const now = Date.now();
  const written = await updateItem(reportKey(ws, report.id), {
    set: {
      columnsRevision: revision + 1,
      columnsEditUntil: now + COLUMN_EDIT_LEASE_MS,
      updatedAt: new Date(now).toISOString(),
    },
    condition:
      'attribute_exists(PK) AND #deleted = :live AND (attribute_not_exists(#columnsRevision) OR #columnsRevision = :seen) AND (attribute_not_exists(#columnsEditUntil) OR #columnsEditUntil < :now) AND (attribute_not_exists(#run) OR #run.#status <> :running)',
    values: { ':live': false, ':seen': revision, ':now': now, ':running': RUNNING },
  });
  if (!written) {
    const current = await getReport(ws, report.id, { consistent: true });
    if (!current) throw reportNotFound(report.id);
    if (current.run?.status === RUNNING) throw reportRunning(report.id);
    throw conflict(`Report ${report.id} was changed by another request; try again`, CONCURRENT_CHANGE);
  }
  try {
    return await write();
  } finally {
    // Only this edit's own lease (a later revision is another edit's, after this lease lapsed). The
    // revision moves again: an edit or run that read revision + 1 may have read the columns before this
    // write, and must not take the lock on them once the lease is gone.
    await updateItem(reportKey(ws, report.id), {
      set: { columnsRevision: revision + 2 },
      remove: ['columnsEditUntil'],
      condition: '#columnsRevision = :mine',
      values: { ':mine': revision + 1 },
    });
  }
}

const CONCURRENT_CHANGE = 'concurrent_change';

/** How many times a column edit that lost the lock to another edit is planned again before its 409. */
const COLUMN_EDIT_ATTEMPTS = 20;

/**
 * Runs a column edit (read, check, then write under withColumnsLocked) again while it loses the lock to another edit
 * of the same report: nothing is written before the lock, so the edit is planned anew on the columns as
 * the other edit left them, and checked against them (two columns added with one name at once: one
 * 201, one 400). A 409 `concurrent_change` only after COLUMN_EDIT_ATTEMPTS.
 */
export async function retryColumnEdit<T>(edit: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await edit();
    } catch (error) {
      const lost = error instanceof AppError && error.code === CONCURRENT_CHANGE;
      if (!lost || attempt >= COLUMN_EDIT_ATTEMPTS) throw error;
      // The other edit may still be writing its columns: give it a moment (jittered) before planning again.
      await setTimeout(Math.min(attempt, 8) * (10 + Math.random() * 20));
    }
  }
}

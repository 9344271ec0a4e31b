import { clip } from './errors.ts';
import { keepLeased } from './lease.ts';
import { logger } from './logger.ts';

/**
 * The one skeleton of the workers whose unit of work is an item under a lease (a workflow node, a batch
 * of report rows, a webhook delivery): claim -> (settle without running) -> renew while it runs ->
 * execute -> finish -> on a throw, release for the next delivery, or settle for good on the last one.
 * The item, not the message, is the truth: every step is safe to run again on a redelivery.
 */

/** One delivery of a queue message. */
export interface Delivery {
  /** How many times SQS has delivered this message, this delivery included. */
  receiveCount: number;
  /** The queue's receive count before the dead-letter queue (the worker's queue settings by default). */
  maxReceiveCount?: number;
}

/** Whether SQS will not deliver the message again (its next stop is the dead-letter queue). */
export function isLastDelivery(delivery: Delivery, queueMaxReceiveCount: number): boolean {
  return delivery.receiveCount >= (delivery.maxReceiveCount ?? queueMaxReceiveCount);
}

/**
 * A failure's message kept on an item keeps at most this many characters: what a step fails with may
 * come from user code or a receiver and must not make the item pass DynamoDB's 400 KB limit (the write
 * would fail on every delivery).
 */
export const MAX_ERROR_CHARS = 4096;
export const clipError = (message: string, max = MAX_ERROR_CHARS) => clip(message, max);

/** Room left before a worker's own timeout for writing its outcome and moving on. */
export const WRITE_MARGIN_MS = 15_000;

/** The deadline of work started at `now` by a worker of `timeoutSeconds`, its write margin kept. */
export function workDeadline(now: number, timeoutSeconds: number): number {
  return now + timeoutSeconds * 1000 - WRITE_MARGIN_MS;
}

export interface LeasedWork<Claim, Outcome, Result> {
  /** How log lines name the work (`Workflow node`), and the keys that say which one (`{ node }`). */
  what: string;
  logKeys: Record<string, unknown>;
  delivery: Delivery;
  /** The queue's receive count (when the delivery does not say). */
  maxReceiveCount: number;
  /** The item claimed under a new lease, or undefined when there is nothing to do (the caller's reasons). */
  claim(): Promise<Claim | undefined>;
  /** A cap on the claims of one item (a worker that dies on it every time): its outcome once passed. */
  attempts?: { of(claim: Claim): number; max: number; givenUp(attempt: number): Outcome };
  /** An outcome decided without running (a skip, a lapsed deadline), or undefined to run. */
  settle?(claim: Claim): Promise<Outcome | undefined> | Outcome | undefined;
  /** Renewal of the lease while `execute` runs, and its release when it throws. */
  lease?: {
    renewEveryMs: number;
    renew(claim: Claim): Promise<void>;
    release(claim: Claim): Promise<void>;
  };
  execute(claim: Claim): Promise<Outcome>;
  /** Writes the outcome (conditioned on the claim) and moves on. */
  finish(claim: Claim, outcome: Outcome): Promise<Result>;
  /**
   * The last delivery threw: the outcome that settles the item for good (SQS will not deliver it
   * again), or undefined when the caller settled it itself. Without it, the error goes on to the
   * queue's handler.
   */
  lastFailure?(claim: Claim, error: unknown): Promise<Outcome | undefined>;
}

/** Runs one delivery of leased work: the finish's result, or undefined when nothing was claimed. */
export async function runLeasedWork<Claim, Outcome, Result>(
  work: LeasedWork<Claim, Outcome, Result>,
): Promise<Result | undefined> {
  const claim = await work.claim();
  if (claim === undefined) return undefined;
  if (work.attempts) {
    const attempt = work.attempts.of(claim);
    if (attempt > work.attempts.max) {
      logger.error(`${work.what} given up after repeated attempts`, { ...work.logKeys, attempt });
      return work.finish(claim, work.attempts.givenUp(attempt));
    }
  }
  const settled = await work.settle?.(claim);
  if (settled !== undefined) return work.finish(claim, settled);

  // The lease lives as long as this worker: renewed until the item is final, so that a worker that
  // dies is taken over once its last renewal lapses.
  const lease = work.lease;
  const stopRenewal = lease
    ? keepLeased(() => lease.renew(claim), lease.renewEveryMs, work.what, work.logKeys)
    : undefined;
  try {
    return await work.finish(claim, await work.execute(claim));
  } catch (error) {
    if (!work.lastFailure || !isLastDelivery(work.delivery, work.maxReceiveCount)) {
      // The next delivery may claim the item at once instead of waiting out this lease.
      await lease?.release(claim);
      throw error;
    }
    const outcome = await work.lastFailure(claim, error);
    return outcome === undefined ? undefined : await work.finish(claim, outcome);
  } finally {
    stopRenewal?.();
  }
}

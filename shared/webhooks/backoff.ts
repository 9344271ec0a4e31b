/**
 * When a failed delivery is tried again: about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after the
 * 1st..6th failed attempt (Standard Webhooks' schedule, cut where SQS's 12 h visibility limit is),
 * each ±10 % so that a receiver that was down is not hit by every retry at once; a `Retry-After` the
 * receiver sent wins (seconds or an HTTP date, at most MAX_DELAY_SECONDS).
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600] as const;

/**
 * The longest delay: SQS refuses a ChangeMessageVisibility past 12 h from the receive, and the attempt
 * has taken up to the worker's timeout (60 s) already; 5 min of margin.
 */
export const MAX_DELAY_SECONDS = 12 * 3600 - 5 * 60;

/** First try + one per delay: the delivery queue's maxReceiveCount. */
export const MAX_DELIVERY_RECEIVES = RETRY_DELAYS_SECONDS.length + 1;

/** `failedReceive`: 1 after the first try of a message failed. */
export function retryDelaySeconds(
  failedReceive: number,
  retryAfter?: string | null,
  nowMs = Date.now(),
  random: () => number = Math.random,
): number {
  const asked = retryAfter ? parseRetryAfter(retryAfter, nowMs) : undefined;
  if (asked !== undefined) return Math.min(asked, MAX_DELAY_SECONDS);
  const index = Math.min(Math.max(failedReceive, 1), RETRY_DELAYS_SECONDS.length) - 1;
  const base = RETRY_DELAYS_SECONDS[index]!;
  const jittered = base * (0.9 + 0.2 * random());
  return Math.min(Math.max(1, Math.round(jittered)), MAX_DELAY_SECONDS);
}

/** `Retry-After: 120` or `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`, in seconds from now (≥ 0). */
export function parseRetryAfter(value: string, nowMs = Date.now()): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_DELAY_SECONDS);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - nowMs) / 1000)), MAX_DELAY_SECONDS);
}

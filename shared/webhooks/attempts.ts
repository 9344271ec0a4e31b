import { clip } from '#shared/platform/errors.ts';
import { ATTEMPT_EXCERPT_MAX_CHARS, type DeliveryAttempt, SIGNATURE_HEADERS } from './repository.ts';

/**
 * What one HTTP attempt of a delivery is kept as (the delivery inspector's rows): when it started, how
 * long it took, the status and the start of the answer (or why none came), and the signature headers
 * sent, which carry no secret. Custom headers are left out: they usually hold the receiver's
 * credentials.
 */
export function deliveryAttempt(input: {
  startedAt: number;
  finishedAt: number;
  headers: Readonly<Record<string, string>>;
  statusCode: number | null;
  /** The answer's body, or why no answer came. */
  excerpt: string;
}): DeliveryAttempt {
  return {
    startedAt: input.startedAt,
    latencyMs: Math.max(0, input.finishedAt - input.startedAt),
    statusCode: input.statusCode,
    excerpt: clip(input.excerpt, ATTEMPT_EXCERPT_MAX_CHARS) || null,
    headers: Object.fromEntries(
      SIGNATURE_HEADERS.map((name) => [name, input.headers[name] ?? '']),
    ) as DeliveryAttempt['headers'],
  };
}

/**
 * What can go wrong when a node calls a provider, as the error types of request logs and node results
 * name it (`error_message` starts with the type: `PROVIDER_RATE_LIMIT: ...`). Pure.
 */
export const PROVIDER_ERROR_TYPES = [
  'PROVIDER_RATE_LIMIT',
  'PROVIDER_QUOTA_LIMIT',
  'PROVIDER_AUTH_ERROR',
  'PROVIDER_TIMEOUT',
  'PROVIDER_ERROR',
] as const;
export type ProviderErrorType = (typeof PROVIDER_ERROR_TYPES)[number];

/** A failed provider call: its type, a message for a person, and the provider's own answer (if any). */
export class ProviderError extends Error {
  readonly type: ProviderErrorType;
  /** The provider's answer body as received (clipped, credentials redacted), or null. */
  readonly raw: string | null;
  readonly status: number | null;

  constructor(
    type: ProviderErrorType,
    message: string,
    raw: string | null = null,
    status: number | null = null,
  ) {
    super(message);
    this.type = type;
    this.raw = raw;
    this.status = status;
    this.name = 'ProviderError';
  }

  /** `TYPE: message`, as a node's `error_message` shows it. */
  get typedMessage(): string {
    return `${this.type}: ${this.message}`;
  }
}

/** A provider's error body carries at most this much into `raw_error_message`. */
export const MAX_RAW_ERROR_CHARS = 4096;

/** What a provider answered with a non-2xx status, or that no answer came. */
export interface FailedCall {
  provider: string;
  /** HTTP status; undefined when no answer came. */
  status?: number;
  /** The body as text. */
  body?: string;
  /** No complete answer in time. */
  timedOut?: boolean;
  /** Why no answer came (connection refused, DNS, refused address...). */
  cause?: string;
}

/**
 * The error type of a failed call:
 * - 429 with `insufficient_quota`, or 402 / `billing_error` / a body about credit or quota: PROVIDER_QUOTA_LIMIT
 * - other 429: PROVIDER_RATE_LIMIT
 * - 401, 403: PROVIDER_AUTH_ERROR
 * - no answer in time, 408, 504: PROVIDER_TIMEOUT
 * - anything else (5xx, 529 overloaded, 400, connection errors): PROVIDER_ERROR
 */
export function classifyFailure(call: FailedCall): ProviderErrorType {
  if (call.timedOut || call.status === 408 || call.status === 504) return 'PROVIDER_TIMEOUT';
  const error = errorObject(call.body);
  const code = [error?.code, error?.type].filter((value) => typeof value === 'string') as string[];
  const quota =
    call.status === 402 ||
    code.includes('insufficient_quota') ||
    code.includes('billing_error') ||
    ((call.status === 400 || call.status === 429) &&
      /credit balance|insufficient[_ ]quota|exceeded your current quota/i.test(String(error?.message ?? '')));
  if (quota) return 'PROVIDER_QUOTA_LIMIT';
  if (call.status === 429) return 'PROVIDER_RATE_LIMIT';
  if (call.status === 401 || call.status === 403) return 'PROVIDER_AUTH_ERROR';
  return 'PROVIDER_ERROR';
}

/** The error a failed call becomes; `secret` (the key used) is redacted from anything kept. */
export function providerFailure(call: FailedCall, secret?: string): ProviderError {
  const type = classifyFailure(call);
  const raw = call.body === undefined ? null : redact(call.body, secret).slice(0, MAX_RAW_ERROR_CHARS);
  const said = errorObject(call.body)?.message;
  const detail = typeof said === 'string' && said ? `: ${redact(said, secret).slice(0, 500)}` : '';
  let message: string;
  if (call.status !== undefined) message = `${call.provider} answered ${call.status}${detail}`;
  else if (call.timedOut) message = `${call.provider} did not answer in time`;
  else
    message = `${call.provider} could not be reached${call.cause ? `: ${redact(call.cause, secret)}` : ''}`;
  return new ProviderError(type, message, raw, call.status ?? null);
}

/** `{error: {...}}` (OpenAI, Anthropic) or the body itself when it is an object. */
function errorObject(body: string | undefined): Record<string, unknown> | undefined {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const inner = (parsed as Record<string, unknown>).error;
  if (inner !== null && typeof inner === 'object') return inner as Record<string, unknown>;
  return parsed as Record<string, unknown>;
}

/**
 * Removes a key from text a provider sent back: the key itself, and masked spellings of it that
 * providers echo (`Incorrect API key provided: sk-abc***********wxyz`).
 */
export function redact(text: string, secret?: string): string {
  let out = text;
  if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(/[\w-]*\*{3,}[\w-]*/g, '[redacted]');
}

import type * as z from '#shared/platform/zod.ts';

/**
 * The error classes every layer throws. The HTTP wrapper turns them into the error body of the API
 * ({ success: false, message, error, detail? }); anything else becomes a 500 "Internal error".
 */
export interface ErrorDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  readonly status: number;
  /** Machine-readable code, e.g. `not_found`. */
  readonly code: string;
  readonly detail?: ErrorDetail[];
  /** More fields of the error body, where a route's contract names them (a 409's `trace_ids`). */
  readonly fields?: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    detail?: ErrorDetail[],
    fields?: Record<string, unknown>,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.fields = fields;
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, code = 'bad_request') => new AppError(400, code, message);
export const unauthorized = (message: string) => new AppError(401, 'unauthorized', message);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const notFound = (message: string) => new AppError(404, 'not_found', message);
export const conflict = (message: string, code = 'conflict') => new AppError(409, code, message);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
/** An answer Lambda could not return (over its 6 MB): the client narrows what it asks for. */
export const answerTooLarge = (message: string) => new AppError(413, 'answer_too_large', message);
export const unsupportedMediaType = (message: string) => new AppError(415, 'unsupported_media_type', message);

/**
 * A `workspace_id` query parameter (PromptLayer's public v2 reads take one) may only name the key's own
 * workspace: another is a 400 "Invalid workspace_id", as the reference answers.
 */
export function checkWorkspaceParam(given: number | undefined, workspaceId: number): void {
  if (given !== undefined && given !== workspaceId)
    throw badRequest('Invalid workspace_id', 'invalid_workspace');
}

/** A 422 for one invalid field; `loc` is where it is, e.g. ['body', 'request_end_time']. */
export function invalid(loc: ErrorDetail['loc'], msg: string, type = 'value_error'): AppError {
  return new AppError(422, 'validation_error', `Invalid ${loc.join('.')}: ${msg}`, [{ loc, msg, type }]);
}

/** A 422 listing every issue of a failed zod parse, each located under `prefix` (e.g. ['body']). */
export function validationError(error: z.core.$ZodError, prefix: (string | number)[]): AppError {
  const detail: ErrorDetail[] = error.issues.map((issue) => ({
    loc: [...prefix, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    msg: issue.message,
    type: issue.code,
  }));
  const first = detail[0];
  const message = first
    ? `Invalid ${first.loc.map((part) => clip(String(part), 64)).join('.')}: ${first.msg}`
    : 'Invalid request';
  return new AppError(422, 'validation_error', message, detail);
}

/** Shortens client-sent text echoed in an error (by code points, so no character is cut in half). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 3).join('')}...`;
}

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
  constructor(
    readonly status: number,
    /** Machine-readable code, e.g. `not_found`. */
    readonly code: string,
    message: string,
    readonly detail?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, code = 'bad_request') => new AppError(400, code, message);
export const unauthorized = (message: string) => new AppError(401, 'unauthorized', message);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const notFound = (message: string) => new AppError(404, 'not_found', message);
export const conflict = (message: string, code = 'conflict') => new AppError(409, code, message);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message: string) => new AppError(415, 'unsupported_media_type', message);

/** A 422 for one invalid field; `loc` is where it is, e.g. ['body', 'request_end_time']. */
export function invalid(loc: ErrorDetail['loc'], msg: string, type = 'value_error'): AppError {
  return new AppError(422, 'validation_error', `Invalid ${loc.join('.')}: ${msg}`, [{ loc, msg, type }]);
}

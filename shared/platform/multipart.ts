/**
 * `multipart/form-data` bodies for routes that declare `multipart` (RouteDefinition in http.ts): what
 * the HTTP wrapper needs to know of them. The wrapper answers 415 to a content type the route does not
 * take; the parser (multipart-parse.ts, busboy) comes with a route's options, so only the functions
 * whose routes take multipart bundle and load it.
 */

/** The parts of one multipart request, as the wrapper hands them to a route's `toBody`. */
export interface MultipartParts {
  /** The one file part, under the name it was sent as (one of the route's `fileFields`). */
  file?: { field: string; filename: string | undefined; data: Buffer };
  /** Text parts by name (only the route's `textFields`; others are a 400). */
  fields: Record<string, string>;
}

/** What a route declares to accept a multipart body besides JSON. */
export interface MultipartOptions {
  /** Names accepted for the file part (e.g. `archive`, `zip`); at most one file per request. */
  fileFields: readonly string[];
  /** Names accepted for text parts (e.g. `metadata`, `json`); at most MAX_MULTIPART_TEXT_FIELDS. */
  textFields: readonly string[];
  /** Largest file part in bytes (413 above it). */
  maxFileBytes: number;
  /**
   * Turns the parts into the value the route's `body` schema validates (the same schema as for JSON), so
   * one validation path serves both formats. May throw AppErrors (400/413/422).
   */
  toBody(parts: MultipartParts): unknown | Promise<unknown>;
  /** The parser (parseMultipart of multipart-parse.ts). */
  parse(
    body: Buffer,
    contentType: string,
    options: Pick<MultipartOptions, 'fileFields' | 'textFields' | 'maxFileBytes'>,
  ): Promise<MultipartParts>;
}

/** Text parts a route may declare, and the largest one (a JSON metadata part is far smaller). */
export const MAX_MULTIPART_TEXT_FIELDS = 5;
export const MAX_MULTIPART_FIELD_BYTES = 256 * 1024;

const MULTIPART_CONTENT_TYPE = /^multipart\/form-data\s*(;|$)/i;

/** Whether a Content-Type header names a `multipart/form-data` body. */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && MULTIPART_CONTENT_TYPE.test(contentType.trim());
}

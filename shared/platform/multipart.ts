/**
 * CONTRACT STUB (issue 11, part "skill-files" implements it): `multipart/form-data` bodies for routes
 * that declare `multipart` (RouteDefinition in http.ts). Parsed with busboy inside the HTTP wrapper,
 * with limits: one file, a few text fields, bounded sizes. A wrong content type answers 415, a part
 * over its limit 413, a malformed body 400.
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
  /** Names accepted for text parts (e.g. `metadata`, `json`). */
  textFields: readonly string[];
  /** Largest file part in bytes (413 above it). */
  maxFileBytes: number;
  /**
   * Turns the parts into the value the route's `body` schema validates (the same schema as for JSON), so
   * one validation path serves both formats. May throw AppErrors (400/413/422).
   */
  toBody(parts: MultipartParts): unknown | Promise<unknown>;
}

export async function parseMultipart(
  _body: Buffer,
  _contentType: string,
  _options: Pick<MultipartOptions, 'fileFields' | 'textFields' | 'maxFileBytes'>,
): Promise<MultipartParts> {
  throw new Error('not implemented yet (part skill-files)');
}

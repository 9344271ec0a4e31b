/** A parsed JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Byte size of a value as JSON (how the 400 KB item limit and Lambda's 6 MB answers are checked). */
export const storedJsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

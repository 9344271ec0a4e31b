/** A parsed JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

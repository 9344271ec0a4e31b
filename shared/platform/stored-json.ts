import { getObjectText, putObject } from './blob-store.ts';

/**
 * JSON values kept on a table item while small, else as an S3 object the item points to (a workflow
 * node's value, a report run's snapshot or a cell's value): the caller writes whichever of `json` and
 * `key` is set.
 */
export const DEFAULT_INLINE_JSON_BYTES = 64 * 1024;

export type StoredJson = { json: string; key?: undefined } | { key: string; json?: undefined };

/** A JSON value stored inline when at most `inlineLimit` bytes, else as the S3 object `objectKey`. */
export async function storeJson(
  objectKey: string,
  value: unknown,
  inlineLimit = DEFAULT_INLINE_JSON_BYTES,
): Promise<StoredJson> {
  const json = JSON.stringify(value ?? null);
  if (Buffer.byteLength(json) <= inlineLimit) return { json };
  await putObject(objectKey, json);
  return { key: objectKey };
}

/** The value `storeJson` stored (null when neither attribute is set). */
export async function loadJson(stored: { json?: string; key?: string }): Promise<unknown> {
  if (stored.json !== undefined) return JSON.parse(stored.json);
  if (stored.key !== undefined) return JSON.parse(await getObjectText(stored.key));
  return null;
}

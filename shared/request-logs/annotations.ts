import type { RequestLogRecord } from './record.ts';
import { updateRequestLog } from './repository.ts';

/**
 * What a client adds to a logged request afterwards: named scores (POST /rest/track-score) and
 * metadata (POST /rest/track-metadata). Each is a read-modify-write under optimistic concurrency
 * (repository.updateRequestLog), so concurrent calls on one log all land. The merges are pure: records
 * are never mutated (the filter engine relies on that).
 */
export const DEFAULT_SCORE_NAME = 'default';

/** Sets `scores[name]`; the `default` score is also the log's `score`. Other names are kept. */
export function withScore(record: RequestLogRecord, name: string, score: number): RequestLogRecord {
  return {
    ...record,
    scores: { ...record.scores, [name]: score },
    score: name === DEFAULT_SCORE_NAME ? score : record.score,
  };
}

/** Adds the keys, replacing the values of keys already there; other keys are kept. */
export function withMetadata(record: RequestLogRecord, metadata: Record<string, string>): RequestLogRecord {
  return { ...record, metadata: { ...record.metadata, ...metadata } };
}

/** Throws 404 when the workspace has no log with that id. */
export async function trackScore(
  workspaceId: number,
  requestId: number,
  score: number,
  name: string = DEFAULT_SCORE_NAME,
): Promise<void> {
  await updateRequestLog(workspaceId, requestId, (record) => withScore(record, name, score));
}

/** Throws 404 when the workspace has no log with that id. */
export async function trackMetadata(
  workspaceId: number,
  requestId: number,
  metadata: Record<string, string>,
): Promise<void> {
  await updateRequestLog(workspaceId, requestId, (record) => withMetadata(record, metadata));
}

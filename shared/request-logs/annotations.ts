import { findLoggedPromptVersion } from '#shared/prompts/lookup.ts';
import type { VersionRecord } from '#shared/prompts/records.ts';
import { DEFAULT_SCORE_NAME } from './annotation-schemas.ts';
import { requireGroup } from './groups.ts';
import type { RequestLogRecord } from './record.ts';
import { updateRequestLog } from './repository.ts';

/**
 * What a client adds to a logged request afterwards: named scores (POST /rest/track-score,
 * /library-track-score), metadata (/rest/track-metadata, /library-track-metadata), a group
 * (/track-group) and the prompt version it used (/library-track-prompt). Each is a read-modify-write
 * under optimistic concurrency (repository.updateRequestLog), so concurrent calls on one log all land.
 * The merges are pure: records are never mutated (the filter engine relies on that).
 */
export { DEFAULT_SCORE_NAME };

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

/** Attaches the log to a group (replacing any earlier one). */
export function withGroup(record: RequestLogRecord, groupId: number): RequestLogRecord {
  return { ...record, group_id: groupId };
}

/** Links the log to a template version, with the variables it was rendered with. */
export function withPrompt(
  record: RequestLogRecord,
  version: VersionRecord,
  variables: Record<string, unknown>,
): RequestLogRecord {
  return {
    ...record,
    prompt_id: version.prompt_id,
    prompt_name: version.prompt_name,
    prompt_version_number: version.number,
    prompt_version_id: version.id,
    prompt_input_variables: variables,
  };
}

/** Throws 404 when the workspace has no log or no group with that id. */
export async function trackGroup(workspaceId: number, requestId: number, groupId: number): Promise<void> {
  await requireGroup(workspaceId, groupId);
  await updateRequestLog(workspaceId, requestId, (record) => withGroup(record, groupId));
}

export interface PromptLink {
  prompt_name: string;
  version?: number | null;
  label?: string | null;
  prompt_input_variables: Record<string, unknown>;
}

/**
 * Links a logged request to a prompt version, resolved as log-request resolves `prompt_name` and
 * `version` (or a release label). Throws 404 for an unknown log, template, version or label.
 */
export async function trackPrompt(workspaceId: number, requestId: number, link: PromptLink): Promise<void> {
  const version = await findLoggedPromptVersion(
    workspaceId,
    { prompt_name: link.prompt_name, prompt_version_number: link.version, label: link.label },
    'not_found',
  );
  await updateRequestLog(workspaceId, requestId, (record) =>
    withPrompt(record, version, link.prompt_input_variables),
  );
}

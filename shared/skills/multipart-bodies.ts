import { badRequest } from '#shared/platform/errors.ts';
import type { MultipartOptions, MultipartParts } from '#shared/platform/multipart.ts';
import { parseMultipart } from '#shared/platform/multipart-parse.ts';
import { readSkillArchive } from './archive.ts';

/**
 * The multipart form of the create and version routes: a ZIP in part `archive`, `zip` or `files` (the
 * part PromptLayer's JS SDK sends) and the JSON metadata (the JSON body's fields) in part `metadata` or
 * `json`. Both end in the route's JSON body schema: the archive's files are added to the metadata's `files` (create) or `file_updates` (version).
 */

/** The wrapper refuses a larger file part with a 413 (the gateway's 6 MB request limit comes first). */
export const MAX_ARCHIVE_BYTES = 6 * 1024 * 1024;

function metadataOf(parts: MultipartParts): Record<string, unknown> {
  const given = (['metadata', 'json'] as const).filter((field) => parts.fields[field] !== undefined);
  if (given.length > 1) throw badRequest('Send the metadata in one part, metadata or json, not both');
  if (given.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(parts.fields[given[0]!]!);
  } catch {
    throw badRequest(`The ${given[0]} part is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`The ${given[0]} part must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function skillMultipart(filesField: 'files' | 'file_updates'): MultipartOptions {
  return {
    fileFields: ['archive', 'zip', 'files'],
    textFields: ['metadata', 'json'],
    maxFileBytes: MAX_ARCHIVE_BYTES,
    parse: parseMultipart,
    async toBody(parts) {
      const metadata = metadataOf(parts);
      const listed = metadata[filesField] ?? [];
      // Not a list: left as sent, for the body schema to refuse (422) rather than dropped.
      if (!parts.file || !Array.isArray(listed)) return metadata;
      const archived = await readSkillArchive(parts.file.data);
      return { ...metadata, [filesField]: [...listed, ...archived] };
    },
  };
}

export const createMultipart = skillMultipart('files');
export const versionMultipart = skillMultipart('file_updates');

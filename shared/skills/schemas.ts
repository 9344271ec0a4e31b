import * as z from 'zod';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { isoTimestamp, pageFields } from '#shared/platform/response-schemas.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import {
  headListQuerySchema,
  labelNameSchema,
  publishExternalIdsSchema,
  versionOrLabel,
  versionSelectorQuery,
} from '#shared/versions/schemas.ts';

/** Request and response schemas of the skill-collection routes (field names from the reference). */

/**
 * Entries of a request's file and path lists: a bound on the work of one request only. The limits of a
 * collection (files, sizes, paths) are checkSkillFiles' (limits.ts), with its statuses.
 */
const MAX_LIST_ENTRIES = 1_000;

/**
 * A collection name: also an identifier in URL paths and the root path (the folder its files sit in once
 * exported), so no `/`, no control character, not `.` or `..` (a URL would resolve it away, an export
 * would climb out of its folder); at most 255 characters.
 */
export const collectionNameSchema = wellFormedString()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !name.includes('/'), 'must not contain "/"')
  .refine((name) => !/\p{Cc}/u.test(name), 'must not contain control characters')
  .refine((name) => name !== '.' && name !== '..', 'must not be "." or ".."');

/** A path as sent; checkSkillFiles (or normaliseSkillPath) normalises and checks it. */
const pathSchema = z.string().max(4096);
/** A provider: any short name (PromptLayer's SDK sends `claude_code`, `openai` or `openclaw`). */
const providerSchema = wellFormedString().min(1).max(64);
const fileSchema = z.object({ path: pathSchema, content: z.string().default('') });

export const createCollectionBodySchema = z.object({
  name: collectionNameSchema,
  folder_id: z.int().min(1).nullable().optional(),
  provider: providerSchema.nullable().optional(),
  files: z.array(fileSchema).max(MAX_LIST_ENTRIES).default([]),
  commit_message: wellFormedString().max(4096).nullable().optional(),
  external_ids: publishExternalIdsSchema.optional(),
});
export type CreateCollectionBody = z.infer<typeof createCollectionBodySchema>;

/**
 * A move: `{old_path, new_path}` (the reference's field names) or `{from, to}` (what PromptLayer's JS
 * SDK sends); both end as `{old_path, new_path}`.
 */
const moveSchema = z.union(
  [
    z.object({ old_path: pathSchema, new_path: pathSchema }),
    z
      .object({ from: pathSchema, to: pathSchema })
      .transform(({ from, to }) => ({ old_path: from, new_path: to })),
  ],
  { error: 'A move is {old_path, new_path} or {from, to}, paths as strings' },
);

export const saveVersionBodySchema = z.object({
  file_updates: z.array(fileSchema).max(MAX_LIST_ENTRIES).default([]),
  moves: z.array(moveSchema).max(MAX_LIST_ENTRIES).default([]),
  deletes: z.array(pathSchema).max(MAX_LIST_ENTRIES).default([]),
  commit_message: wellFormedString().max(4096).nullable().optional(),
  release_label: labelNameSchema.nullable().optional(),
  /** The collection's provider from this version on (absent: unchanged). */
  provider: providerSchema.nullable().optional(),
});
export type SaveVersionBody = z.infer<typeof saveVersionBodySchema>;

export const renameBodySchema = z.object({ name: collectionNameSchema.nullable().optional() });
export type RenameBody = z.infer<typeof renameBodySchema>;

/** A UUID, a name or a root path (a root path is the name). */
export const collectionIdentifierSchema = wellFormedString().min(1).max(255);

export const getCollectionQuerySchema = z
  .object({ ...versionSelectorQuery, format: z.enum(['zip', 'json']).optional() })
  .superRefine(versionOrLabel);
export type GetCollectionQuery = z.infer<typeof getCollectionQuerySchema>;

export const listCollectionsQuerySchema = headListQuerySchema({
  created_by_email: z.string().max(MAX_EMAIL_LENGTH).optional(),
});
export type ListCollectionsQuery = z.infer<typeof listCollectionsQuerySchema>;

export const skillCollectionSchema = z
  .object({
    id: z.uuid(),
    workspace_id: z.int(),
    folder_id: z.int().nullable(),
    root_path: z.string(),
    name: z.string(),
    provider: z.string().nullable(),
    is_deleted: z.boolean(),
    created_by: z.int().nullable(),
    created_at: isoTimestamp,
    updated_by: z.int().nullable(),
    updated_at: isoTimestamp,
    latest_version_number: z.int(),
    external_ids: z.array(externalIdSchema),
  })
  .meta({ id: 'SkillCollection' });

export const skillVersionSchema = z
  .object({
    id: z.uuid(),
    skill_collection_id: z.uuid(),
    workspace_id: z.int(),
    number: z.int(),
    /** The same as `number`: the field PromptLayer's SDK declares. */
    version: z.int(),
    root_path_at_version: z.string(),
    provider: z.string().nullable(),
    file_paths: z.array(z.string()),
    commit_message: z.string().nullable(),
    release_label: z.string().nullable(),
    archived: z.boolean(),
    created_by: z.int().nullable(),
    user_email: z.string().nullable(),
    created_at: isoTimestamp,
  })
  .meta({ id: 'SkillCollectionVersion' });

export const createCollectionResponseSchema = z.object({
  success: z.literal(true),
  skill_collection: skillCollectionSchema,
  version: skillVersionSchema,
  external_ids: z.array(externalIdSchema),
});

export const getCollectionResponseSchema = z.object({
  success: z.literal(true),
  skill_collection: skillCollectionSchema,
  files: z.record(z.string(), z.string()),
  /** Files left out of an answer that would pass Lambda's 6 MB, with their sizes (read them as a ZIP). */
  omitted_files: z.record(z.string(), z.int()).optional(),
  version: skillVersionSchema,
});

export const listCollectionsResponseSchema = z.object({
  success: z.literal(true),
  skill_collections: z.array(skillCollectionSchema),
  ...pageFields,
});

export const saveVersionResponseSchema = z.object({
  success: z.literal(true),
  skill_collection: skillCollectionSchema,
  version: skillVersionSchema,
});

export const renameResponseSchema = z.object({
  success: z.literal(true),
  skill_collection: skillCollectionSchema,
});

import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { isoTimestamp, pageFields } from '#shared/platform/response-schemas.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
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
export const collectionNameSchema = wellFormedString().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(255),
  z.refine((name) => !name.includes('/'), 'must not contain "/"'),
  z.refine((name) => !/\p{Cc}/u.test(name), 'must not contain control characters'),
  z.refine((name) => name !== '.' && name !== '..', 'must not be "." or ".."'),
);

/** A path as sent; checkSkillFiles (or normaliseSkillPath) normalises and checks it. */
const pathSchema = z.string().check(z.maxLength(4096));
/** A provider: any short name (PromptLayer's SDK sends `claude_code`, `openai` or `openclaw`). */
const providerSchema = wellFormedString().check(z.minLength(1), z.maxLength(64));
const fileSchema = z.object({ path: pathSchema, content: z._default(z.string(), '') });

export const createCollectionBodySchema = z.object({
  name: collectionNameSchema,
  folder_id: z.optional(z.nullable(z.int().check(z.gte(1)))),
  provider: z.optional(z.nullable(providerSchema)),
  files: z._default(z.array(fileSchema).check(z.maxLength(MAX_LIST_ENTRIES)), []),
  commit_message: z.optional(z.nullable(wellFormedString().check(z.maxLength(4096)))),
  external_ids: z.optional(publishExternalIdsSchema),
});
export type CreateCollectionBody = z.infer<typeof createCollectionBodySchema>;

/**
 * A move: `{old_path, new_path}` (the reference's field names) or `{from, to}` (what PromptLayer's JS
 * SDK sends); both end as `{old_path, new_path}`.
 */
const moveSchema = z.union(
  [
    z.object({ old_path: pathSchema, new_path: pathSchema }),
    z.pipe(
      z.object({ from: pathSchema, to: pathSchema }),
      z.transform(({ from, to }) => ({ old_path: from, new_path: to })),
    ),
  ],
  { error: 'A move is {old_path, new_path} or {from, to}, paths as strings' },
);

export const saveVersionBodySchema = z.object({
  file_updates: z._default(z.array(fileSchema).check(z.maxLength(MAX_LIST_ENTRIES)), []),
  moves: z._default(z.array(moveSchema).check(z.maxLength(MAX_LIST_ENTRIES)), []),
  deletes: z._default(z.array(pathSchema).check(z.maxLength(MAX_LIST_ENTRIES)), []),
  commit_message: z.optional(z.nullable(wellFormedString().check(z.maxLength(4096)))),
  release_label: z.optional(z.nullable(labelNameSchema)),
  /** The collection's provider from this version on (absent: unchanged). */
  provider: z.optional(z.nullable(providerSchema)),
});
export type SaveVersionBody = z.infer<typeof saveVersionBodySchema>;

export const renameBodySchema = z.object({ name: z.optional(z.nullable(collectionNameSchema)) });
export type RenameBody = z.infer<typeof renameBodySchema>;

/** A UUID, a name or a root path (a root path is the name). */
export const collectionIdentifierSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));

export const getCollectionQuerySchema = z
  .object({ ...versionSelectorQuery, format: z.optional(z.enum(['zip', 'json'])) })
  .check(z.superRefine(versionOrLabel));
export type GetCollectionQuery = z.infer<typeof getCollectionQuerySchema>;

export const listCollectionsQuerySchema = headListQuerySchema({
  created_by_email: z.optional(z.string().check(z.maxLength(MAX_EMAIL_LENGTH))),
});
export type ListCollectionsQuery = z.infer<typeof listCollectionsQuerySchema>;

export const skillCollectionSchema = z
  .object({
    id: z.uuid(),
    workspace_id: z.int(),
    folder_id: z.nullable(z.int()),
    root_path: z.string(),
    name: z.string(),
    provider: z.nullable(z.string()),
    is_deleted: z.boolean(),
    created_by: z.nullable(z.int()),
    created_at: isoTimestamp,
    updated_by: z.nullable(z.int()),
    updated_at: isoTimestamp,
    latest_version_number: z.int(),
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'SkillCollection' });

export const skillVersionSchema = z
  .object({
    id: z.uuid(),
    skill_collection_id: z.uuid(),
    workspace_id: z.int(),
    number: z.int(),
    /** The same as `number`: the field PromptLayer's SDK declares. */
    version: z.int(),
    root_path_at_version: z.string(),
    provider: z.nullable(z.string()),
    file_paths: z.array(z.string()),
    commit_message: z.nullable(z.string()),
    release_label: z.nullable(z.string()),
    archived: z.boolean(),
    created_by: z.nullable(z.int()),
    user_email: z.nullable(z.string()),
    created_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'SkillCollectionVersion' });

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
  omitted_files: z.optional(z.record(z.string(), z.int())),
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

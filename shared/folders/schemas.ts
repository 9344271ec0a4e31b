import * as z from 'zod';
import { folderFilterParam } from '#shared/entities/folder-filter.ts';
import { FOLDER_TYPES, type FolderType } from '#shared/entities/kinds.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import {
  givenTogether,
  idParam,
  isUuid,
  queryBoolean,
  sortOrderNeedsSortBy,
  wellFormedString,
} from '#shared/platform/schemas.ts';
import { HEAD_SORT_FIELDS } from '#shared/versions/list.ts';
import { entityListFilters } from '#shared/versions/schemas.ts';

/** Request and answer shapes of the folder routes, with PromptLayer's field names. */

export const folderNameSchema = wellFormedString().min(1).max(255);

const folderIdField = z.int().positive().max(Number.MAX_SAFE_INTEGER);
const workspaceIdField = z.int().positive().max(Number.MAX_SAFE_INTEGER).optional();

export const createFolderBodySchema = z.object({
  name: folderNameSchema,
  parent_id: folderIdField.nullable().optional(),
  workspace_id: workspaceIdField,
  external_ids: z.array(externalIdSchema).max(100).optional(),
});
export type CreateFolderBody = z.output<typeof createFolderBodySchema>;

export const updateFolderBodySchema = z
  .object({ name: folderNameSchema.optional(), parent_id: folderIdField.nullable().optional() })
  .refine((body) => body.name !== undefined || body.parent_id !== undefined, {
    message: 'give name, parent_id or both',
  });
export type UpdateFolderBody = z.output<typeof updateFolderBodySchema>;

export const folderPathParams = z.object({ folder_id: idParam });

export const listFoldersQuerySchema = z.object({
  workspace_id: idParam.optional(),
  parent_id: folderFilterParam
    .meta({
      description: 'Only the children of this folder; `null`: the folders at the root. Absent: every folder.',
    })
    .optional(),
});

export const resolveFolderQuerySchema = z.object({
  workspace_id: idParam.optional(),
  path: wellFormedString().min(1).max(4096),
});

export const deleteFolderQuerySchema = z.object({ cascade: queryBoolean.default(false) });

// ------------------------------------------------------------------------------------ entities

/** `{id, type}`: a positive integer id, a UUID for a skill collection (lower-cased: one collection, one id). */
export const entityReferenceSchema = z
  .object({
    id: z.union([
      z.int().positive().max(Number.MAX_SAFE_INTEGER),
      z
        .string()
        .refine(isUuid, 'must be a UUID')
        .transform((id) => id.toLowerCase()),
    ]),
    type: z.enum(FOLDER_TYPES as unknown as [FolderType, ...FolderType[]]),
  })
  .superRefine((ref, ctx) => {
    const uuid = ref.type === 'SKILL_COLLECTION';
    if (uuid !== (typeof ref.id === 'string'))
      ctx.addIssue({
        code: 'custom',
        path: ['id'],
        message: uuid ? 'a skill collection id is a UUID' : 'must be a positive integer',
      });
  })
  .meta({ id: 'EntityReference' });
export type EntityReference = z.output<typeof entityReferenceSchema>;

export const MAX_ENTITIES = 1000;

export const moveEntitiesBodySchema = z.object({
  entities: z.array(entityReferenceSchema).min(1).max(MAX_ENTITIES),
  folder_id: folderIdField.nullable().optional(),
  workspace_id: workspaceIdField,
});
export type MoveEntitiesBody = z.output<typeof moveEntitiesBodySchema>;

export const deleteEntitiesBodySchema = z.object({
  entities: z.array(entityReferenceSchema).min(1).max(MAX_ENTITIES),
  cascade: z.boolean().default(false),
  workspace_id: workspaceIdField,
});
export type DeleteEntitiesBody = z.output<typeof deleteEntitiesBodySchema>;

const folderTypeQuery = z.enum(FOLDER_TYPES as unknown as [FolderType, ...FolderType[]]);

export const listEntitiesQuerySchema = z
  .object({
    workspace_id: idParam.optional(),
    folder_id: folderFilterParam
      .meta({ description: 'The folder listed; `null` or absent: the workspace root.' })
      .optional(),
    filter_type: z
      .union([folderTypeQuery.transform((type) => [type]), z.array(folderTypeQuery)])
      .meta({
        description:
          "The types listed (repeat for several). Absent: PromptLayer's types; `TOOL` and `SKILL_COLLECTION` (ours, with UUID ids for skill collections) are listed only when named here.",
      })
      .optional(),
    search_query: wellFormedString().max(1024).optional(),
    flatten: queryBoolean.default(false),
    include_metadata: queryBoolean.default(false),
    created_by_email: wellFormedString().max(320).optional(),
    ...entityListFilters,
    sort_by: z.enum(HEAD_SORT_FIELDS).optional(),
    sort_order: z.enum(['asc', 'desc']).optional(),
    semantic_search: queryBoolean
      .refine((on) => !on, 'semantic search is not supported: use search_query')
      .optional(),
  })
  .superRefine(givenTogether('external_source', 'external_id'))
  .superRefine(sortOrderNeedsSortBy);
export type ListEntitiesQuery = z.output<typeof listEntitiesQuerySchema>;

// -------------------------------------------------------------------------------------- answers

const externalIds = z.array(externalIdSchema);

export const folderSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    path: z.array(z.object({ id: z.int(), name: z.string() })).nullable(),
    workspace_id: z.int(),
    parent_id: z.int().nullable(),
    external_ids: externalIds,
  })
  .meta({ id: 'Folder' });
export type FolderView = z.output<typeof folderSchema>;

export const folderResponseSchema = z.object({ success: z.literal(true), folder: folderSchema });
export const listFoldersResponseSchema = z.object({
  success: z.literal(true),
  folders: z.array(folderSchema),
});
export const resolveFolderResponseSchema = z.object({ success: z.literal(true), id: z.int() });
export const deleteFolderResponseSchema = z.object({
  success: z.literal(true),
  deleted_folders: z.int(),
  moved_to_root: z.int(),
});
export const countResponseSchema = z
  .object({ moved_count: z.int() })
  .meta({ id: 'FolderEntitiesCountResponse' });

export const folderEntitySchema = z
  .object({
    id: z.union([z.int(), z.string()]),
    name: z.string(),
    type: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    folder_id: z.int().nullable(),
    path: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
    external_ids: externalIds,
  })
  .meta({ id: 'FolderEntity' });
export const listEntitiesResponseSchema = z.object({ entities: z.array(folderEntitySchema) });

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
import * as z from '#shared/platform/zod.ts';
import { HEAD_SORT_FIELDS } from '#shared/versions/list.ts';
import { entityListFilters } from '#shared/versions/schemas.ts';

/** Request and answer shapes of the folder routes, with PromptLayer's field names. */

export const folderNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));

const folderIdField = z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER));
const workspaceIdField = z.optional(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)));

export const createFolderBodySchema = z.object({
  name: folderNameSchema,
  parent_id: z.optional(z.nullable(folderIdField)),
  workspace_id: workspaceIdField,
  external_ids: z.optional(z.array(externalIdSchema).check(z.maxLength(100))),
});
export type CreateFolderBody = z.output<typeof createFolderBodySchema>;

export const updateFolderBodySchema = z
  .object({ name: z.optional(folderNameSchema), parent_id: z.optional(z.nullable(folderIdField)) })
  .check(
    z.refine((body) => body.name !== undefined || body.parent_id !== undefined, {
      message: 'give name, parent_id or both',
    }),
  );
export type UpdateFolderBody = z.output<typeof updateFolderBodySchema>;

export const folderPathParams = z.object({ folder_id: idParam });

export const listFoldersQuerySchema = z.object({
  workspace_id: z.optional(idParam),
  parent_id: z.optional(
    folderFilterParam.clone().register(z.globalRegistry, {
      description: 'Only the children of this folder; `null`: the folders at the root. Absent: every folder.',
    }),
  ),
});

export const resolveFolderQuerySchema = z.object({
  workspace_id: z.optional(idParam),
  path: wellFormedString().check(z.minLength(1), z.maxLength(4096)),
});

export const deleteFolderQuerySchema = z.object({ cascade: z._default(queryBoolean, false) });

// ------------------------------------------------------------------------------------ entities

/** `{id, type}`: a positive integer id, a UUID for a skill collection (lower-cased: one collection, one id). */
export const entityReferenceSchema = z
  .object({
    id: z.union([
      z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
      z.pipe(
        z.string().check(z.refine(isUuid, 'must be a UUID')),
        z.transform((id) => id.toLowerCase()),
      ),
    ]),
    type: z.enum(FOLDER_TYPES as unknown as [FolderType, ...FolderType[]]),
  })
  .check(
    z.superRefine((ref, ctx) => {
      const uuid = ref.type === 'SKILL_COLLECTION';
      if (uuid !== (typeof ref.id === 'string'))
        ctx.addIssue({
          code: 'custom',
          path: ['id'],
          message: uuid ? 'a skill collection id is a UUID' : 'must be a positive integer',
        });
    }),
  )
  .clone()
  .register(z.globalRegistry, { id: 'EntityReference' });
export type EntityReference = z.output<typeof entityReferenceSchema>;

export const MAX_ENTITIES = 1000;

export const moveEntitiesBodySchema = z.object({
  entities: z.array(entityReferenceSchema).check(z.minLength(1), z.maxLength(MAX_ENTITIES)),
  folder_id: z.optional(z.nullable(folderIdField)),
  workspace_id: workspaceIdField,
});
export type MoveEntitiesBody = z.output<typeof moveEntitiesBodySchema>;

export const deleteEntitiesBodySchema = z.object({
  entities: z.array(entityReferenceSchema).check(z.minLength(1), z.maxLength(MAX_ENTITIES)),
  cascade: z._default(z.boolean(), false),
  workspace_id: workspaceIdField,
});
export type DeleteEntitiesBody = z.output<typeof deleteEntitiesBodySchema>;

const folderTypeQuery = z.enum(FOLDER_TYPES as unknown as [FolderType, ...FolderType[]]);

export const listEntitiesQuerySchema = z
  .object({
    workspace_id: z.optional(idParam),
    folder_id: z.optional(
      folderFilterParam.clone().register(z.globalRegistry, {
        description: 'The folder listed; `null` or absent: the workspace root.',
      }),
    ),
    filter_type: z.optional(
      z
        .union([
          z.pipe(
            folderTypeQuery,
            z.transform((type) => [type]),
          ),
          z.array(folderTypeQuery),
        ])
        .clone()
        .register(z.globalRegistry, {
          description:
            "The types listed (repeat for several). Absent: PromptLayer's types; `TOOL` and `SKILL_COLLECTION` (ours, with UUID ids for skill collections) are listed only when named here.",
        }),
    ),
    search_query: z.optional(wellFormedString().check(z.maxLength(1024))),
    flatten: z._default(queryBoolean, false),
    include_metadata: z._default(queryBoolean, false),
    created_by_email: z.optional(wellFormedString().check(z.maxLength(320))),
    ...entityListFilters,
    sort_by: z.optional(z.enum(HEAD_SORT_FIELDS)),
    sort_order: z.optional(z.enum(['asc', 'desc'])),
    semantic_search: z.optional(
      queryBoolean.check(z.refine((on) => !on, 'semantic search is not supported: use search_query')),
    ),
  })
  .check(z.superRefine(givenTogether('external_source', 'external_id')), z.superRefine(sortOrderNeedsSortBy));
export type ListEntitiesQuery = z.output<typeof listEntitiesQuerySchema>;

// -------------------------------------------------------------------------------------- answers

const externalIds = z.array(externalIdSchema);

export const folderSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    path: z.nullable(z.array(z.object({ id: z.int(), name: z.string() }))),
    workspace_id: z.int(),
    parent_id: z.nullable(z.int()),
    external_ids: externalIds,
  })
  .clone()
  .register(z.globalRegistry, { id: 'Folder' });
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
  .clone()
  .register(z.globalRegistry, { id: 'FolderEntitiesCountResponse' });

export const folderEntitySchema = z
  .object({
    id: z.union([z.int(), z.string()]),
    name: z.string(),
    type: z.string(),
    created_at: z.nullable(z.string()),
    updated_at: z.nullable(z.string()),
    folder_id: z.nullable(z.int()),
    path: z.array(z.string()),
    metadata: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    external_ids: externalIds,
  })
  .clone()
  .register(z.globalRegistry, { id: 'FolderEntity' });
export const listEntitiesResponseSchema = z.object({ entities: z.array(folderEntitySchema) });

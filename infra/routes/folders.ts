import type { RouteDef } from '../route-types.ts';

/**
 * Folders: the tree, entity moves and listings, external ids. The fixed paths under /folders/ come
 * before /folders/{folder_id}: the local gateway matches rows in order (API Gateway prefers the fixed
 * segment itself).
 */
export const FOLDER_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/public/v2/folders',
    handler: 'functions/http/folder-create.ts',
    table: 'write',
  },
  { method: 'GET', path: '/api/public/v2/folders', handler: 'functions/http/folders-list.ts', table: 'read' },
  {
    method: 'GET',
    path: '/api/public/v2/folders/resolve-id',
    handler: 'functions/http/folder-resolve-id.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/api/public/v2/folders/entities',
    handler: 'functions/http/folder-entities-list.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: '/api/public/v2/folders/entities',
    handler: 'functions/http/folder-entities-move.ts',
    table: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/public/v2/folders/entities',
    handler: 'functions/http/folder-entities-delete.ts',
    table: 'write',
  },
  {
    method: 'PATCH',
    path: '/api/public/v2/folders/{folder_id}',
    handler: 'functions/http/folder-update.ts',
    table: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/public/v2/folders/{folder_id}',
    handler: 'functions/http/folder-delete.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: '/api/public/v2/folders/{folder_id}/external-ids',
    handler: 'functions/http/folder-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/folders/{folder_id}/external-ids',
    handler: 'functions/http/folder-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/api/public/v2/folders/{folder_id}/external-ids/{source}/{external_id}',
    handler: 'functions/http/folder-external-id-delete.ts',
    table: 'write',
  },
];

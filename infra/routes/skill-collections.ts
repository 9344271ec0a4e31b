import type { RouteDef } from '../route-types.ts';

/**
 * Skill collections: create, versions, reads (JSON or ZIP), list, rename and external ids. File
 * contents live in the bucket; only the functions that read or write them get it. Every path under
 * /api/public/v2/skill-collections/{...} names its parameter `identifier` (API Gateway allows one
 * parameter name per path level), so the external-id routes (a `skill_collection_id` in PromptLayer's
 * API) share it.
 */
const BASE = '/api/public/v2/skill-collections';

export const SKILL_COLLECTION_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: BASE,
    handler: 'functions/http/skill-collection-create.ts',
    table: 'write',
    bucket: 'write',
    events: true,
  },
  { method: 'GET', path: BASE, handler: 'functions/http/skill-collections-list.ts', table: 'read' },
  {
    method: 'GET',
    path: `${BASE}/{identifier}`,
    handler: 'functions/http/skill-collection-get.ts',
    table: 'read',
    bucket: 'read',
  },
  {
    method: 'PATCH',
    path: `${BASE}/{identifier}`,
    handler: 'functions/http/skill-collection-patch.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: `${BASE}/{identifier}/versions`,
    handler: 'functions/http/skill-collection-version-create.ts',
    table: 'write',
    bucket: 'write',
    events: true,
  },
  {
    method: 'POST',
    path: `${BASE}/{identifier}/external-ids`,
    handler: 'functions/http/skill-collection-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: `${BASE}/{identifier}/external-ids`,
    handler: 'functions/http/skill-collection-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: `${BASE}/{identifier}/external-ids/{source}/{external_id}`,
    handler: 'functions/http/skill-collection-external-id-delete.ts',
    table: 'write',
  },
];

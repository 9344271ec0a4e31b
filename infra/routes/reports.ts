import type { RouteDef } from '../route-types.ts';

/**
 * Report definitions: creating evaluation pipelines, reading and listing them, their columns, names,
 * tags, external ids and deletion (running them: report-runs.ts; their results: report-results.ts).
 * Every path under /reports/{...} names its parameter `report_id`: API Gateway allows one parameter
 * name per path level.
 */
export const REPORT_ROUTES: readonly RouteDef[] = [
  { method: 'POST', path: '/reports', handler: 'functions/http/report-create.ts', table: 'write' },
  { method: 'GET', path: '/reports/{report_id}', handler: 'functions/http/report-get.ts', table: 'read' },
  // Static: the executors' configuration schemas as JSON Schema; no table.
  { method: 'GET', path: '/reports/column-types', handler: 'functions/http/report-column-types.ts' },
  {
    method: 'DELETE',
    path: '/reports/{report_id}',
    handler: 'functions/http/report-delete.ts',
    table: 'write',
  },
  {
    method: 'DELETE',
    path: '/reports/name/{report_name}',
    handler: 'functions/http/report-delete-by-name.ts',
    table: 'write',
  },
  {
    method: 'PATCH',
    path: '/reports/{report_id}/rename',
    handler: 'functions/http/report-rename.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/evaluations',
    handler: 'functions/http/report-list.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: '/report-columns',
    handler: 'functions/http/report-column-create.ts',
    table: 'write',
  },
  {
    method: 'PATCH',
    path: '/report-columns/{report_column_id}',
    handler: 'functions/http/report-column-patch.ts',
    table: 'write',
  },
  {
    method: 'DELETE',
    path: '/report-columns/{report_column_id}',
    handler: 'functions/http/report-column-delete.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: '/reports/{report_id}/external-ids',
    handler: 'functions/http/report-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/reports/{report_id}/external-ids',
    handler: 'functions/http/report-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/reports/{report_id}/external-ids/{source}/{external_id}',
    handler: 'functions/http/report-external-id-delete.ts',
    table: 'write',
  },
];

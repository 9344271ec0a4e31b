import type { RouteDef } from '../route-types.ts';

/**
 * Report definitions: creating evaluation pipelines, reading and listing them, their columns, names,
 * tags, external ids and deletion (running them: report-runs.ts; their results: report-results.ts).
 */
export const REPORT_ROUTES: readonly RouteDef[] = [
  { method: 'POST', path: '/reports', handler: 'functions/http/report-create.ts', table: 'write' },
  { method: 'GET', path: '/reports/{report_id}', handler: 'functions/http/report-get.ts', table: 'read' },
];

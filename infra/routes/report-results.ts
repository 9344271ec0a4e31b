import type { RouteDef } from '../route-types.ts';

/**
 * What a client reads of a report's runs: the score, the score card (which columns and code make it),
 * and the rows with their cells. Paths under /reports/{...} name the parameter `report_id`, as every
 * report route does (API Gateway allows one parameter name per path level).
 */
export const REPORT_RESULT_ROUTES: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/reports/{report_id}/score',
    handler: 'functions/http/report-score.ts',
    table: 'read',
  },
  {
    method: 'PATCH',
    path: '/reports/{report_id}/score-card',
    handler: 'functions/http/report-score-card.ts',
    table: 'write',
    // The score of a completed run is computed again: its cells and dataset rows, the score code.
    bucket: 'read',
    sandbox: true,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    method: 'GET',
    path: '/api/public/v2/evaluations/{evaluation_id}/rows',
    handler: 'functions/http/report-rows.ts',
    table: 'read',
    bucket: 'read',
  },
];

import type { RouteDef, ScheduleDef } from '../route-types.ts';

/** Monitors over the request-log rollups (shared/monitors, docs/monitors.md). */
const BASE = '/api/public/v2/monitors';

export const MONITOR_ROUTES: readonly RouteDef[] = [
  { method: 'POST', path: BASE, handler: 'functions/http/monitor-create.ts', table: 'write' },
  { method: 'GET', path: BASE, handler: 'functions/http/monitors-list.ts', table: 'read' },
  { method: 'GET', path: `${BASE}/{monitor_id}`, handler: 'functions/http/monitor-get.ts', table: 'read' },
  {
    method: 'GET',
    path: `${BASE}/{monitor_id}/state`,
    handler: 'functions/http/monitor-state.ts',
    table: 'read',
  },
  {
    method: 'PATCH',
    path: `${BASE}/{monitor_id}`,
    handler: 'functions/http/monitor-update.ts',
    table: 'write',
  },
  {
    method: 'DELETE',
    path: `${BASE}/{monitor_id}`,
    handler: 'functions/http/monitor-delete.ts',
    table: 'write',
  },
];

export const MONITOR_SCHEDULES: Readonly<Record<string, ScheduleDef>> = {
  'monitor-evaluation': {
    handler: 'functions/scheduled/monitor-evaluation.ts',
    everyMinutes: 1,
    description: 'evaluates every active monitor over the rollups; a crossing emits its event',
    table: 'write', // state transitions and their events
    events: true,
    timeoutSeconds: 60,
  },
};

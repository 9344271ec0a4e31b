import type { RouteDef } from '../route-types.ts';

/** Workflow definitions: versions, labels, the list and external ids (filled by the registry part). */
export const WORKFLOW_ROUTES: readonly RouteDef[] = [];
